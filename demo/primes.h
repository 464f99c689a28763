/* SPDX-License-Identifier: MIT */
/* The work both demos give a thread (demo/primes.c). */
#ifndef PROFIL_DEMO_PRIMES_H
#define PROFIL_DEMO_PRIMES_H

/* How many primes are below limit, by trial division: a CPU-bound function worth sampling. */
long count_primes(long limit);

#endif
