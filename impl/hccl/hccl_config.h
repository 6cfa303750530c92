/*
 * impl/hccl/hccl_config.h - settings and state of communicators: process-wide
 * settings (HcclSetConfig), what a communicator was made with
 * (HcclConfigGetInfo, HcclGetCommConfigCapability), finding one by name,
 * suspending and resuming, and the state callbacks.
 *
 * Suspend holds a communicator: its operations are refused with
 * HCCL_E_SUSPENDING until HcclCommResume; state callbacks (by name, at most
 * ACLRT_HCCL_STATE_CALLBACKS) run around resume and destroy. There are no
 * network interfaces to switch between (MPI chooses them):
 * HcclCommWorkingDevNicSet is HCCL_E_NOT_SUPPORT.
 */
#ifndef ACLRT_IMPL_HCCL_HCCL_CONFIG_H
#define ACLRT_IMPL_HCCL_HCCL_CONFIG_H

#include "../core/base.h"
#include "../core/thread.h"
#include "hccl_comm.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define ACLRT_HCCL_STATE_CALLBACKS 16

static _Atomic int32_t aclrt_hccl_deterministic;

struct aclrt_hccl_state_cb {
    char name[64];
    HcclCommStateCallback cb;
    void *args;
};
static struct aclrt_hccl_state_cb aclrt_hccl_state_cbs[ACLRT_HCCL_STATE_CALLBACKS]; /* live list lock */

ACLRT_API HcclResult HcclSetConfig(HcclConfig config, HcclConfigValue configValue)
{
    ACLRT_ENTER();
    if (config != HCCL_DETERMINISTIC)
        return aclrt_hccl_fail(HCCL_E_PARA, "config %d is no HcclConfig", (int)config);
    if (configValue.value < 0 || configValue.value > 2)
        return aclrt_hccl_fail(HCCL_E_PARA, "HCCL_DETERMINISTIC takes 0, 1 or 2, not %d", configValue.value);
    atomic_store_explicit(&aclrt_hccl_deterministic, configValue.value, memory_order_relaxed);
    return HCCL_SUCCESS;
}

ACLRT_API HcclResult HcclGetConfig(HcclConfig config, HcclConfigValue *configValue)
{
    ACLRT_ENTER();
    if (configValue == NULL)
        return aclrt_hccl_fail(HCCL_E_PTR, "configValue is NULL");
    if (config != HCCL_DETERMINISTIC)
        return aclrt_hccl_fail(HCCL_E_PARA, "config %d is no HcclConfig", (int)config);
    configValue->value = atomic_load_explicit(&aclrt_hccl_deterministic, memory_order_relaxed);
    return HCCL_SUCCESS;
}

/* Every item of HcclCommConfig is read (those that mean nothing here are accepted and kept). */
ACLRT_API uint32_t HcclGetCommConfigCapability(void)
{
    return HCCL_COMM_CONFIG_RESERVED;
}

ACLRT_API HcclResult HcclConfigGetInfo(HcclComm comm, HcclConfigType cfgType, uint32_t infoLen, void *info)
{
    ACLRT_ENTER();
    struct aclrt_hccl_comm *c;
    HcclResult r = aclrt_hccl_comm_get(comm, &c);
    if (r != HCCL_SUCCESS)
        return r;
    if (info == NULL)
        return aclrt_hccl_fail(HCCL_E_PTR, "info is NULL");
    switch (cfgType) {
    case HCCL_CONFIG_TYPE_OP_EXPANSION_MODE: {
        if (infoLen < sizeof(int32_t))
            return aclrt_hccl_fail(HCCL_E_PARA, "infoLen %u is less than %zu", infoLen, sizeof(int32_t));
        int32_t mode = HCCL_OP_EXPANSION_MODE_HOST; /* the host runs every step */
        memcpy(info, &mode, sizeof mode);
        return HCCL_SUCCESS;
    }
    case HCCL_CONFIG_TYPE_HCCL_ALGO: {
        const char *algo = c->team != NULL ? "level0:shared-memory" : "level0:mpi";
        if (infoLen < strlen(algo) + 1)
            return aclrt_hccl_fail(HCCL_E_PARA, "infoLen %u is less than %zu", infoLen, strlen(algo) + 1);
        memcpy(info, algo, strlen(algo) + 1);
        return HCCL_SUCCESS;
    }
    case HCCL_CONFIG_TYPE_UB_MULTI_CHANNEL_NUM: {
        if (infoLen < sizeof(uint32_t))
            return aclrt_hccl_fail(HCCL_E_PARA, "infoLen %u is less than %zu", infoLen, sizeof(uint32_t));
        uint32_t one = 1;
        memcpy(info, &one, sizeof one);
        return HCCL_SUCCESS;
    }
    default: return aclrt_hccl_fail(HCCL_E_PARA, "cfgType %d is no HcclConfigType", (int)cfgType);
    }
}

ACLRT_API HcclResult HcclCommGetHandleWithName(const char *commName, HcclComm *comm)
{
    ACLRT_ENTER();
    if (commName == NULL || comm == NULL)
        return aclrt_hccl_fail(HCCL_E_PTR, "%s is NULL", commName == NULL ? "commName" : "comm");
    struct aclrt_hccl_comm *found = NULL;
    pthread_mutex_lock(&aclrt_hccl_live_lock);
    for (struct aclrt_hccl_comm *c = aclrt_hccl_live; c != NULL && found == NULL; c = c->next)
        if (strcmp(c->name, commName) == 0)
            found = c;
    pthread_mutex_unlock(&aclrt_hccl_live_lock);
    if (found == NULL)
        return aclrt_hccl_fail(HCCL_E_NOT_FOUND, "no live communicator is named %s", commName);
    *comm = found;
    return HCCL_SUCCESS;
}

/* Runs the state callbacks for c at `phase`; the first failure is returned. */
ACLRT_INTERNAL HcclResult aclrt_hccl_state_callbacks(struct aclrt_hccl_comm *c, HcclCommStatePhase phase)
{
    struct aclrt_hccl_state_cb cbs[ACLRT_HCCL_STATE_CALLBACKS];
    pthread_mutex_lock(&aclrt_hccl_live_lock);
    memcpy(cbs, aclrt_hccl_state_cbs, sizeof cbs);
    pthread_mutex_unlock(&aclrt_hccl_live_lock);
    HcclResult first = HCCL_SUCCESS;
    for (int i = 0; i < ACLRT_HCCL_STATE_CALLBACKS; i++)
        if (cbs[i].cb != NULL) {
            HcclResult r = cbs[i].cb(c, phase, cbs[i].args);
            if (first == HCCL_SUCCESS && r != HCCL_SUCCESS)
                first = r;
        }
    return first;
}

ACLRT_API HcclResult HcclCommRegCommStateCallback(const char *regName, HcclCommStateCallback cb, void *args)
{
    ACLRT_ENTER();
    if (regName == NULL || regName[0] == '\0')
        return aclrt_hccl_fail(HCCL_E_PTR, "regName is NULL or empty");
    if (strlen(regName) >= sizeof aclrt_hccl_state_cbs[0].name)
        return aclrt_hccl_fail(HCCL_E_PARA, "regName is longer than %zu bytes", sizeof aclrt_hccl_state_cbs[0].name - 1);
    HcclResult r = HCCL_SUCCESS;
    pthread_mutex_lock(&aclrt_hccl_live_lock);
    int slot = -1, free_slot = -1;
    for (int i = 0; i < ACLRT_HCCL_STATE_CALLBACKS; i++) {
        if (aclrt_hccl_state_cbs[i].cb != NULL && strcmp(aclrt_hccl_state_cbs[i].name, regName) == 0)
            slot = i;
        else if (aclrt_hccl_state_cbs[i].cb == NULL && free_slot < 0)
            free_slot = i;
    }
    if (cb == NULL) { /* NULL unregisters */
        if (slot >= 0)
            memset(&aclrt_hccl_state_cbs[slot], 0, sizeof aclrt_hccl_state_cbs[slot]);
    } else if (slot < 0 && free_slot < 0) {
        r = HCCL_E_UNAVAIL;
    } else {
        struct aclrt_hccl_state_cb *e = &aclrt_hccl_state_cbs[slot >= 0 ? slot : free_slot];
        snprintf(e->name, sizeof e->name, "%s", regName);
        e->cb = cb, e->args = args;
    }
    pthread_mutex_unlock(&aclrt_hccl_live_lock);
    if (r != HCCL_SUCCESS)
        return aclrt_hccl_fail(r, "%d state callbacks are registered already", ACLRT_HCCL_STATE_CALLBACKS);
    return HCCL_SUCCESS;
}

ACLRT_API HcclResult HcclCommSuspend(HcclComm comm)
{
    ACLRT_ENTER();
    struct aclrt_hccl_comm *c;
    HcclResult r = aclrt_hccl_comm_get(comm, &c);
    if (r != HCCL_SUCCESS)
        return r;
    atomic_store_explicit(&c->suspended, 1, memory_order_release);
    return HCCL_SUCCESS;
}

ACLRT_API HcclResult HcclCommResume(HcclComm comm)
{
    ACLRT_ENTER();
    struct aclrt_hccl_comm *c;
    HcclResult r = aclrt_hccl_comm_get(comm, &c);
    if (r != HCCL_SUCCESS)
        return r;
    if (!atomic_load_explicit(&c->suspended, memory_order_acquire))
        return aclrt_hccl_fail(HCCL_E_PARA, "the communicator is not suspended");
    r = aclrt_hccl_state_callbacks(c, HCCL_COMM_STATE_PHASE_RESUME_PRE);
    atomic_store_explicit(&c->suspended, 0, memory_order_release);
    HcclResult post = aclrt_hccl_state_callbacks(c, HCCL_COMM_STATE_PHASE_RESUME_POST);
    return r != HCCL_SUCCESS ? r : post;
}

ACLRT_API HcclResult HcclCommGetStatus(const char *commId, HcclCommStatus *status)
{
    ACLRT_ENTER();
    if (commId == NULL || status == NULL)
        return aclrt_hccl_fail(HCCL_E_PTR, "%s is NULL", commId == NULL ? "commId" : "status");
    int found = -1;
    pthread_mutex_lock(&aclrt_hccl_live_lock);
    for (struct aclrt_hccl_comm *c = aclrt_hccl_live; c != NULL && found < 0; c = c->next)
        if (strcmp(c->name, commId) == 0)
            found = atomic_load_explicit(&c->suspended, memory_order_acquire);
    pthread_mutex_unlock(&aclrt_hccl_live_lock);
    *status = found < 0 ? HCCL_COMM_STATUS_INVALID : found ? HCCL_COMM_STATUS_SUSPENDING : HCCL_COMM_STATUS_READY;
    return found < 0 ? aclrt_hccl_fail(HCCL_E_NOT_FOUND, "no live communicator is named %s", commId) : HCCL_SUCCESS;
}

ACLRT_API HcclResult HcclCommWorkingDevNicSet(HcclComm comm, uint32_t *ranks, bool *useBackup, uint32_t nRanks)
{
    ACLRT_ENTER();
    struct aclrt_hccl_comm *c;
    HcclResult r = aclrt_hccl_comm_get(comm, &c);
    if (r != HCCL_SUCCESS)
        return r;
    if (ranks == NULL || useBackup == NULL)
        return aclrt_hccl_fail(HCCL_E_PTR, "%s is NULL", ranks == NULL ? "ranks" : "useBackup");
    (void)nRanks;
    return aclrt_hccl_fail(HCCL_E_NOT_SUPPORT, "there are no device NICs to switch between: MPI chooses the "
                                               "network");
}

#endif /* ACLRT_IMPL_HCCL_HCCL_CONFIG_H */
