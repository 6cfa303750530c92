/*
 * backends/host/host_module.h - the host backend's kernel binaries: shared
 * objects of host kernels, loaded through the module hooks of
 * backends/backend.h (the core's registry of binaries is
 * impl/kernel/binary.h).
 *
 * A binary is a shared object, opened with dlopen, and a function is a
 * symbol it defines itself with the host-kernel signature
 * (aclrtxHostKernel). Loading from memory writes the bytes to an anonymous
 * file (memfd_create; where that is missing, a private temporary file that
 * is unlinked at once) and opens that as /proc/self/fd/N: the runtime keeps
 * no reference to the caller's bytes. The descriptor stays open while the
 * library is: the dynamic loader knows a library by its name, and a later
 * load must not find this one under a reused descriptor number. Symbols are
 * bound at load (RTLD_NOW), so a binary that cannot run fails to load
 * instead of failing in a kernel. A module's address is where the loader
 * placed the library; a function's code size is its symbol's size.
 *
 * Backends an embedder registers run on the host backend, and load the
 * same binaries.
 */
#ifndef ACLRT_BACKENDS_HOST_HOST_MODULE_H
#define ACLRT_BACKENDS_HOST_HOST_MODULE_H

#include "../../impl/core/base.h"
#include "../../impl/core/error.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>

/* A loaded shared object. */
struct aclrt_host_module {
    void *dl; /* the dlopen handle */
    int fd;   /* loaded from data: the file it was opened as; -1 otherwise */
};

/*
 * Taken around every dlopen and dlclose of a binary and around our reads of
 * the loader's link map (aclrt_host_module_address): the loader's own lock
 * is invisible to ThreadSanitizer, and a library opened twice shares one
 * link map, written by whichever thread opened it first. Innermost: taken
 * after the core's aclrt_kernels_lock (binary.h), never before it.
 */
static pthread_mutex_t aclrt_host_loader_lock = PTHREAD_MUTEX_INITIALIZER;

/* Open a shared object; ACL_ERROR_RT_PARAM_INVALID (with the loader's reason) if it is not one. */
static aclError aclrt_host_module_open(const char *path, const char *shown, void **dl)
{
    pthread_mutex_lock(&aclrt_host_loader_lock);
    *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    const char *why = *dl == NULL ? dlerror() : NULL;
    pthread_mutex_unlock(&aclrt_host_loader_lock);
    if (*dl == NULL) {
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "%s is not a binary this backend can load (a shared object): %s",
                          shown, why != NULL ? why : "unknown reason");
    }
    return ACL_SUCCESS;
}

/* Write all of data to fd. */
static bool aclrt_host_write_all(int fd, const void *data, size_t length)
{
    const unsigned char *p = (const unsigned char *)data;
    while (length > 0) {
        ssize_t n = write(fd, p, length);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        p += n;
        length -= (size_t)n;
    }
    return true;
}

/* Open bytes in memory as a shared object: an anonymous file, or an unlinked temporary one, kept open in *fd. */
static aclError aclrt_host_module_open_data(const void *data, size_t length, void **dl, int *fd_out)
{
    char path[64];
    int fd = -1;
#ifdef MFD_CLOEXEC
    fd = memfd_create("aclrt-binary", MFD_CLOEXEC);
#endif
    bool temporary = fd < 0;
    char temp[] = "/tmp/aclrt-binary-XXXXXX";
    if (temporary) {
        const char *dir = getenv("TMPDIR");
        char *tpath = temp;
        char buf[4096];
        if (dir != NULL && dir[0] != '\0' && strlen(dir) + sizeof "/aclrt-binary-XXXXXX" <= sizeof buf) {
            snprintf(buf, sizeof buf, "%s/aclrt-binary-XXXXXX", dir);
            tpath = buf;
        }
        fd = mkostemp(tpath, O_CLOEXEC);
        if (fd < 0)
            return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "no anonymous or temporary file to load the data from: %s",
                              strerror(errno));
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        unlink(tpath); /* private from here on: only the descriptor names it */
    } else {
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    aclError rc;
    if (!aclrt_host_write_all(fd, data, length))
        rc = aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "cannot write the binary's %zu bytes to its file: %s", length,
                        strerror(errno));
    else
        rc = aclrt_host_module_open(path, "the data", dl);
    if (rc != ACL_SUCCESS)
        close(fd);
    else
        *fd_out = fd;
    return rc;
}

/* The backend's module_load: dlopen of the file, or of the bytes written to a file of their own. */
ACLRT_INTERNAL aclError aclrt_host_module_load(const char *path, const char *shown, const void *image, size_t size,
                                               void **out)
{
    struct aclrt_host_module *m = (struct aclrt_host_module *)malloc(sizeof *m);
    if (m == NULL)
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "no memory for a module");
    m->fd = -1;
    aclError rc = path != NULL ? aclrt_host_module_open(path, shown, &m->dl)
                               : aclrt_host_module_open_data(image, size, &m->dl, &m->fd);
    if (rc != ACL_SUCCESS) {
        free(m);
        return rc;
    }
    *out = m;
    return ACL_SUCCESS;
}

/* The backend's module_unload: the library, then the file it was opened as. */
ACLRT_INTERNAL void aclrt_host_module_unload(void *module)
{
    struct aclrt_host_module *m = (struct aclrt_host_module *)module;
    pthread_mutex_lock(&aclrt_host_loader_lock);
    dlclose(m->dl);
    pthread_mutex_unlock(&aclrt_host_loader_lock);
    if (m->fd >= 0)
        close(m->fd); /* after the library: its name stays unique while it is loaded */
    free(m);
}

/*
 * A symbol `name` that the library `dl` defines itself (not one of the
 * libraries it links) with type `want` (STT_FUNC, or STT_OBJECT); its
 * address and size. The reason it is not, in `why`.
 */
static void *aclrt_host_module_symbol(void *dl, const char *name, unsigned want, size_t *size, const char **why)
{
    dlerror();
    void *addr = dlsym(dl, name);
    if (addr == NULL) {
        *why = "no such symbol";
        return NULL;
    }
    struct link_map *own = NULL, *where = NULL;
    Dl_info info;
    const ElfW(Sym) *sym = NULL;
    if (dlinfo(dl, RTLD_DI_LINKMAP, &own) != 0 ||
        dladdr1(addr, &info, (void **)&where, RTLD_DL_LINKMAP) == 0 || where != own) {
        *why = "the symbol is another library's";
        return NULL;
    }
    if (dladdr1(addr, &info, (void **)&sym, RTLD_DL_SYMENT) == 0 || sym == NULL) {
        *why = "the symbol has no entry of its own";
        return NULL;
    }
    unsigned type = ELF64_ST_TYPE(sym->st_info);
    if (want == STT_FUNC ? (type != STT_FUNC && type != STT_GNU_IFUNC) : type != STT_OBJECT) {
        *why = want == STT_FUNC ? "the symbol is not a function" : "the symbol is not a variable";
        return NULL;
    }
    *size = (size_t)sym->st_size;
    return addr;
}

/* The backend's module_function: a function symbol of the library's own; the host kernel the core runs. */
ACLRT_INTERNAL aclError aclrt_host_module_function(void *module, const char *name, void **function, size_t *code_size)
{
    struct aclrt_host_module *m = (struct aclrt_host_module *)module;
    const char *why = NULL;
    *function = aclrt_host_module_symbol(m->dl, name, STT_FUNC, code_size, &why);
    if (*function == NULL)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "the binary has no kernel named \"%s\" (%s)", name, why);
    return ACL_SUCCESS;
}

/* The backend's module_global: a variable of the library's own. */
ACLRT_INTERNAL aclError aclrt_host_module_global(void *module, const char *name, void **address, size_t *size)
{
    struct aclrt_host_module *m = (struct aclrt_host_module *)module;
    const char *why = "";
    *address = aclrt_host_module_symbol(m->dl, name, STT_OBJECT, size, &why);
    if (*address == NULL)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "the binary has no global variable named \"%s\" (%s)", name, why);
    return ACL_SUCCESS;
}

/* The backend's module_address: where the loader placed the library. */
ACLRT_INTERNAL aclError aclrt_host_module_address(void *module, void **address)
{
    struct aclrt_host_module *m = (struct aclrt_host_module *)module;
    struct link_map *map = NULL;
    pthread_mutex_lock(&aclrt_host_loader_lock);
    if (dlinfo(m->dl, RTLD_DI_LINKMAP, &map) == 0 && map != NULL)
        *address = (void *)map->l_addr;
    pthread_mutex_unlock(&aclrt_host_loader_lock);
    if (map == NULL)
        return aclrt_fail(ACL_ERROR_RT_INTERNAL_ERROR, "the loader does not say where the binary is");
    return ACL_SUCCESS;
}

/* The backend's module_abandon: a thread of the parent may have held the loader lock at the fork. */
ACLRT_INTERNAL void aclrt_host_module_abandon(void)
{
    pthread_mutex_init(&aclrt_host_loader_lock, NULL);
}

#endif /* ACLRT_BACKENDS_HOST_HOST_MODULE_H */
