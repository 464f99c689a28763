// SPDX-License-Identifier: MIT
// A Rust program whose hot function has a mangled name (legacy or v0, as
// rustc is told): profil report must show it demangled.  It spins in
// demo::hot::Spinner::spin until the process has used 0.4 s of CPU time
// (measured by itself), then prints that time.
mod hot {
    pub struct Spinner {
        pub salt: u64,
    }

    impl Spinner {
        #[inline(never)]
        pub fn spin(&self, rounds: u64) -> u64 {
            let mut acc: u64 = 0;
            let mut i: u64 = 0;
            while i < rounds {
                let v = unsafe { std::ptr::read_volatile(&i) };
                acc = acc.wrapping_mul(31).wrapping_add(v ^ self.salt);
                i += 1;
            }
            acc
        }
    }
}

#[repr(C)]
struct Timespec {
    sec: i64,
    nsec: i64,
}

extern "C" {
    fn clock_gettime(clock: i32, ts: *mut Timespec) -> i32;
}

const CLOCK_PROCESS_CPUTIME_ID: i32 = 2;

fn cpu_seconds() -> f64 {
    let mut ts = Timespec { sec: 0, nsec: 0 };
    unsafe { clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    ts.sec as f64 + ts.nsec as f64 / 1e9
}

fn main() {
    let s = hot::Spinner { salt: 7 };
    let mut sink: u64 = 0;
    while cpu_seconds() < 0.4 {
        sink = sink.wrapping_add(s.spin(200_000));
    }
    println!("cpu {:.3} sink {}", cpu_seconds(), sink & 1);
}
