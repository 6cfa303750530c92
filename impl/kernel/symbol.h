/*
 * impl/kernel/symbol.h - host symbols of loaded binaries: device variables
 * and functions found by their host address. The calls: aclrtGetSymbolAddress,
 * aclrtGetSymbolSize, aclrtMemcpyToSymbol(Async), aclrtMemcpyFromSymbol(Async),
 * aclrtGetFuncBySymbol, aclrtBinaryGetFunctionByEntry.
 *
 * In CANN a device variable (`__gm__`) compiled with the host program has a
 * host symbol, and the runtime finds the device variable by that address.
 * On aclrt a device variable is a global variable of a loaded binary
 * (aclrtBinaryGetGlobal), and its host symbol is the address of the
 * variable the binary's shared object exports, as the dynamic loader knows
 * it (dlsym of the same file gives it): the symbol is resolved with dladdr
 * to the object that defines it and the variable's name, which must start
 * exactly at the symbol (STT_OBJECT). The binary is the loaded one whose
 * file is that object (its real path), or, for a binary loaded from data on
 * the host backend, the one the loader placed at that object's base. The
 * variable's device address and size are then the backend's
 * (module_global): on the host backend the symbol's own address, on the
 * cuda backend the module's global (cuModuleGetGlobal).
 *
 * Copies check `offset + count` against the variable's size and the copy
 * kind (to: HOST_TO_DEVICE or DEFAULT; from: DEVICE_TO_HOST or DEFAULT),
 * then are aclrtMemcpy / aclrtMemcpyAsync at the variable's address plus
 * `offset`. A variable is not memory of aclrtMalloc: an asynchronous copy
 * returns once it has run, as one with pageable host memory does.
 *
 * Functions: aclrtGetFuncBySymbol takes a kernel's host address (dlsym of
 * the binary's file) and gives the function of that name in the binary
 * that defines it; aclrtBinaryGetFunctionByEntry takes an entry, either
 * what aclrtGetFunctionAddr gives for a function looked up before (any
 * backend) or a host address of a function of the binary's shared object.
 * Both are aclrtBinaryGetFunction by name from there: the same name gives
 * the same handle.
 */
#ifndef ACLRT_IMPL_KERNEL_SYMBOL_H
#define ACLRT_IMPL_KERNEL_SYMBOL_H

#include "../core/base.h"
#include "../core/error.h"
#include "../core/handle.h"
#include "../core/thread.h"
#include "../../backends/backend.h"
#include "../memory/memcpy.h"
#include "binary.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>

/*
 * The loaded binary that defines the host symbol `symbol`, a variable
 * (STT_OBJECT) or a function (`function`), and the symbol's name (copied
 * into name[cap]); with aclrt_kernels_lock held on success. `what` names
 * the argument in messages. ACL_ERROR_RT_PARAM_INVALID for an address that
 * is not the start of such a symbol of a loaded binary.
 */
static aclError aclrt_symbol_owner(const void *symbol, bool function, const char *what, struct aclrt_binary **owner,
                                   char *name, size_t cap)
{
    Dl_info info;
    const ElfW(Sym) *sym = NULL;
    if (dladdr1(symbol, &info, (void **)&sym, RTLD_DL_SYMENT) == 0 || info.dli_sname == NULL || sym == NULL ||
        info.dli_saddr != symbol)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "%s %p is not the address of a %s a shared object exports",
                          what, symbol, function ? "function" : "variable");
    unsigned type = ELF64_ST_TYPE(sym->st_info);
    if (function ? (type != STT_FUNC && type != STT_GNU_IFUNC) : type != STT_OBJECT)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "%s %p is %s, which is not a %s", what, symbol, info.dli_sname,
                          function ? "function" : "variable");
    if (strlen(info.dli_sname) >= cap)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "%s %p: its name is longer than %zu bytes", what, symbol, cap - 1);
    strcpy(name, info.dli_sname);
    char *real = info.dli_fname != NULL ? realpath(info.dli_fname, NULL) : NULL;
    *owner = NULL;
    pthread_mutex_lock(&aclrt_kernels_lock);
    ACLRT_TABLE_FOREACH(&aclrt_binaries, struct aclrt_binary, b)
    {
        if (!(atomic_load_explicit(&b->hdr.generation, memory_order_acquire) & 1u) ||
            atomic_load_explicit(&b->state, memory_order_relaxed) != ACLRT_BINARY_LOADED)
            continue;
        void *module = atomic_load_explicit(&b->module, memory_order_relaxed);
        void *base = NULL;
        if (b->path != NULL ? (real != NULL && strcmp(b->path, real) == 0)
                            : (b->backend->module_address != NULL && b->backend->module_address(module, &base) ==
                                   ACL_SUCCESS && base == info.dli_fbase)) {
            *owner = b;
            break;
        }
    }
    free(real);
    if (*owner != NULL)
        return ACL_SUCCESS;
    pthread_mutex_unlock(&aclrt_kernels_lock);
    return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "%s %p (%s of %s) is in no loaded binary", what, symbol, name,
                      info.dli_fname != NULL ? info.dli_fname : "?");
}

#define ACLRT_SYMBOL_NAME_MAX 1024

/*
 * The device variable whose host symbol is `symbol`: its device address and
 * size. ACL_ERROR_INVALID_PARAM for NULL; ACL_ERROR_RT_PARAM_INVALID for an
 * address that is not the start of a variable of a loaded binary.
 */
static aclError aclrt_symbol_resolve(const void *symbol, void **dev, size_t *size)
{
    if (symbol == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "symbol is NULL");
    char name[ACLRT_SYMBOL_NAME_MAX];
    struct aclrt_binary *owner;
    aclError rc = aclrt_symbol_owner(symbol, false, "symbol", &owner, name, sizeof name);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = owner->backend->module_global(atomic_load_explicit(&owner->module, memory_order_relaxed), name, dev, size);
    pthread_mutex_unlock(&aclrt_kernels_lock);
    return rc;
}

/* The variable's address at `offset`, for a copy of `count` bytes of the given kind. */
static aclError aclrt_symbol_span(const void *symbol, size_t count, size_t offset, aclrtMemcpyKind kind,
                                  bool to_symbol, void **at)
{
    if (kind != ACL_MEMCPY_DEFAULT && kind != (to_symbol ? ACL_MEMCPY_HOST_TO_DEVICE : ACL_MEMCPY_DEVICE_TO_HOST))
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "copy kind %d is not %s or ACL_MEMCPY_DEFAULT", (int)kind,
                          to_symbol ? "ACL_MEMCPY_HOST_TO_DEVICE" : "ACL_MEMCPY_DEVICE_TO_HOST");
    void *dev = NULL;
    size_t size = 0;
    aclError rc = aclrt_symbol_resolve(symbol, &dev, &size);
    if (rc != ACL_SUCCESS)
        return rc;
    if (offset > size || count > size - offset)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "offset %zu + count %zu is beyond the variable's %zu bytes", offset,
                          count, size);
    *at = (unsigned char *)dev + offset;
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtGetSymbolAddress(const void *symbol, void **devPtr)
{
    ACLRT_ENTER();
    if (devPtr == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "devPtr (output) is NULL");
    size_t size;
    return aclrt_symbol_resolve(symbol, devPtr, &size);
}

ACLRT_API aclError aclrtGetSymbolSize(const void *symbol, size_t *size)
{
    ACLRT_ENTER();
    if (size == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "size (output) is NULL");
    void *dev;
    return aclrt_symbol_resolve(symbol, &dev, size);
}

ACLRT_API aclError aclrtMemcpyToSymbol(const void *symbol, const void *src, size_t count, size_t offset,
                                       aclrtMemcpyKind kind)
{
    ACLRT_ENTER();
    if (src == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "src is NULL");
    void *at = NULL;
    aclError rc = aclrt_symbol_span(symbol, count, offset, kind, true, &at);
    if (rc != ACL_SUCCESS)
        return rc;
    return aclrt_memcpy_sync(at, count, src, count, kind);
}

ACLRT_API aclError aclrtMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count, size_t offset,
                                            aclrtMemcpyKind kind, aclrtStream stream)
{
    ACLRT_ENTER();
    if (src == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "src is NULL");
    void *at = NULL;
    aclError rc = aclrt_symbol_span(symbol, count, offset, kind, true, &at);
    if (rc != ACL_SUCCESS)
        return rc;
    return aclrt_memcpy_async(at, count, src, count, kind, stream);
}

ACLRT_API aclError aclrtMemcpyFromSymbol(void *dst, size_t dstMax, const void *symbol, size_t count, size_t offset,
                                         aclrtMemcpyKind kind)
{
    ACLRT_ENTER();
    if (dst == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "dst is NULL");
    if (count > dstMax)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "count %zu exceeds dstMax %zu", count, dstMax);
    void *at = NULL;
    aclError rc = aclrt_symbol_span(symbol, count, offset, kind, false, &at);
    if (rc != ACL_SUCCESS)
        return rc;
    return aclrt_memcpy_sync(dst, dstMax, at, count, kind);
}

ACLRT_API aclError aclrtMemcpyFromSymbolAsync(void *dst, size_t dstMax, const void *symbol, size_t count,
                                              size_t offset, aclrtMemcpyKind kind, aclrtStream stream)
{
    ACLRT_ENTER();
    if (dst == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "dst is NULL");
    if (count > dstMax)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "count %zu exceeds dstMax %zu", count, dstMax);
    void *at = NULL;
    aclError rc = aclrt_symbol_span(symbol, count, offset, kind, false, &at);
    if (rc != ACL_SUCCESS)
        return rc;
    return aclrt_memcpy_async(dst, dstMax, at, count, kind, stream);
}

/* ------------------------------------------------------------------------
 * Functions by their host address
 * ------------------------------------------------------------------------ */

/* aclrtBinaryGetFunction of `name` in binary b (its handle) on behalf of a lookup by address. */
static aclError aclrt_symbol_function(struct aclrt_binary *b, const char *name, aclrtFuncHandle *funcHandle)
{
    aclrtBinHandle h = aclrt_slot_handle(&aclrt_binaries, &b->hdr);
    pthread_mutex_unlock(&aclrt_kernels_lock);
    return aclrt_binary_get_function(h, name, funcHandle);
}

ACLRT_API aclError aclrtGetFuncBySymbol(const void *symbol, aclrtFuncHandle *funcHandle)
{
    ACLRT_ENTER();
    if (symbol == NULL || funcHandle == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL", symbol == NULL ? "symbol" : "funcHandle (output)");
    char name[ACLRT_SYMBOL_NAME_MAX];
    struct aclrt_binary *owner;
    aclError rc = aclrt_symbol_owner(symbol, true, "symbol", &owner, name, sizeof name);
    if (rc != ACL_SUCCESS)
        return rc;
    return aclrt_symbol_function(owner, name, funcHandle);
}

ACLRT_API aclError aclrtBinaryGetFunctionByEntry(aclrtBinHandle binHandle, uint64_t funcEntry,
                                                 aclrtFuncHandle *funcHandle)
{
    ACLRT_ENTER();
    if (funcHandle == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "funcHandle (output) is NULL");
    struct aclrt_binary *b;
    aclError rc = aclrt_binary_lock_live(binHandle, "", &b);
    if (rc != ACL_SUCCESS)
        return rc;
    /* A function looked up before: its entry is what aclrtGetFunctionAddr gives (any backend). */
    for (struct aclrt_function *f = b->functions; f != NULL; f = f->next) {
        void *fn = aclrt_function_entry(f);
        uint64_t entry = 0;
        memcpy(&entry, &fn, sizeof fn < sizeof entry ? sizeof fn : sizeof entry);
        if (entry == funcEntry) {
            *funcHandle = aclrt_slot_handle(&aclrt_functions, &f->hdr);
            pthread_mutex_unlock(&aclrt_kernels_lock);
            return ACL_SUCCESS;
        }
    }
    pthread_mutex_unlock(&aclrt_kernels_lock);
    /* Otherwise the function its binary's shared object defines at that address. */
    char name[ACLRT_SYMBOL_NAME_MAX];
    struct aclrt_binary *owner;
    if (funcEntry == 0 || funcEntry != (uint64_t)(uintptr_t)funcEntry)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "funcEntry %#llx is no function's entry",
                          (unsigned long long)funcEntry);
    rc = aclrt_symbol_owner((const void *)(uintptr_t)funcEntry, true, "funcEntry", &owner, name, sizeof name);
    if (rc != ACL_SUCCESS)
        return rc;
    if (owner != b && (owner->path == NULL || b->path == NULL || strcmp(owner->path, b->path) != 0)) {
        pthread_mutex_unlock(&aclrt_kernels_lock);
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "funcEntry %#llx (%s) is a function of another binary",
                          (unsigned long long)funcEntry, name);
    }
    return aclrt_symbol_function(b, name, funcHandle);
}

#endif /* ACLRT_IMPL_KERNEL_SYMBOL_H */
