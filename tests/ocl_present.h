/* SPDX-License-Identifier: MIT */
/*
 * Whether this machine has an OpenCL platform, decided apart from libquire's opencl
 * backend, the code under test: were presence read from quire_open("opencl"), a broken
 * backend would turn its tests into skips. Here the ICD loader (libOpenCL.so.1 of
 * ocl-icd-opencl-dev) is loaded and asked for its platforms, which it reads from the vendor
 * files of OCL_ICD_VENDORS or /etc/OpenCL/vendors (pocl-opencl-icd's pocl.icd).
 */
#ifndef QUIRE_TEST_OCL_PRESENT_H
#define QUIRE_TEST_OCL_PRESENT_H

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>

/* 1 if the ICD loader counts at least one platform; else 0, with why filled in (the
 * packages of mk/debian-packages.txt to install). */
static inline int ocl_platform_present(char *why, size_t n)
{
	/* clGetPlatformIDs(cl_uint, cl_platform_id *, cl_uint *): cl_uint is uint32_t. */
	typedef int32_t (*get_ids_fn)(uint32_t, void **, uint32_t *);
	void *lib = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		snprintf(why, n, "no OpenCL ICD loader (%s): apt-get install ocl-icd-opencl-dev",
			 dlerror());
		return 0;
	}
	get_ids_fn get_ids;
	*(void **)&get_ids = dlsym(lib, "clGetPlatformIDs");
	uint32_t count = 0;
	int32_t err = get_ids ? get_ids(0, NULL, &count) : -1;
	/* Left loaded: unloading an ICD loader with a vendor library loaded is not safe, and
	 * the backend under test loads the same library again. */
	if (err != 0 || count == 0) {
		snprintf(why, n,
			 "no OpenCL platform (clGetPlatformIDs: status %d, %u platforms): "
			 "apt-get install pocl-opencl-icd",
			 (int)err, (unsigned)count);
		return 0;
	}
	return 1;
}

#endif
