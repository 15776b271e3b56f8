/* SPDX-License-Identifier: Apache-2.0 */
/* Preloaded into chakra-replay by the mpirun tests: OpenMPI unloads its
 * plugins in MPI_Finalize, after which LeakSanitizer (ASan build) cannot
 * name the code that allocated what they keep, so lsan.supp could not
 * suppress it and chakra-replay's own leaks would drown in it. Keeping
 * every shared object loaded until exit changes nothing else. */
int dlclose(void *handle);

int dlclose(void *handle)
{
	(void)handle;
	return 0;
}
