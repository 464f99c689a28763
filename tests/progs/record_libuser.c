// SPDX-License-Identifier: MIT
/* record_libuser: linked against librecord_hot.so; nearly all its time is in the library. */
void lib_spin(unsigned long units);

int main(void)
{
	lib_spin(3);
	return 0;
}
