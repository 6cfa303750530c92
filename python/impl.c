/*
 * python/impl.c - the one translation unit of the module that compiles the
 * aclrt implementation. Every other file includes aclrt.h for the API only.
 */
#define ACLRT_IMPLEMENTATION
#include "aclrt.h"
