/*
 * impl/tdt/tdt_dataset.h - datasets: the ordered items a channel carries as one message.
 *
 * A dataset the program fills holds the program's items (it frees none of
 * them). A receive (tdt_channel.h) fills a dataset with items it made, whose
 * data lies in the received message: the dataset then owns the items and the
 * message (`block`), frees them when it is destroyed or received into again,
 * and refuses acltdtAddDataItem, as CANN's does. The data of the items the
 * program adds must be all host memory or all device memory (CANN's rule;
 * memory the runtime does not know counts as host memory). A dataset's name
 * is "": on CANN a device's outfeed names the datasets it sends, and on
 * aclrt every sender is a program.
 */
#ifndef ACLRT_IMPL_TDT_TDT_DATASET_H
#define ACLRT_IMPL_TDT_TDT_DATASET_H

#include "../core/base.h"
#include "../core/error.h"
#include "../core/thread.h"
#include "../memory/memory.h"
#include "tdt_item.h"

#define ACLRT_TDT_DATASET_MAGIC 0x74647444u /* "tdtD" */

enum aclrt_tdt_mem { ACLRT_TDT_MEM_UNKNOWN, ACLRT_TDT_MEM_HOST, ACLRT_TDT_MEM_DEVICE };

struct acltdtDataset {
    uint32_t magic;
    bool received;         /* a receive filled it: the items and `block` are the dataset's */
    enum aclrt_tdt_mem mem; /* where the data of the program's items is */
    acltdtDataItem **items;
    size_t count, cap;
    void *block; /* received: the message the items' data lies in */
};

ACLRT_INLINE bool aclrt_tdt_dataset_ok(const acltdtDataset *ds)
{
    if (ds == NULL) {
        aclrt_fail(ACL_ERROR_INVALID_PARAM, "dataset is NULL");
        return false;
    }
    if (ds->magic != ACLRT_TDT_DATASET_MAGIC) {
        aclrt_fail(ACL_ERROR_INVALID_PARAM, "dataset %p is not a dataset (acltdtCreateDataset)", (const void *)ds);
        return false;
    }
    return true;
}

/* Empty the dataset, freeing what a receive put there (the program's items stay the program's). */
static void aclrt_tdt_dataset_clear(acltdtDataset *ds)
{
    if (ds->received) {
        for (size_t i = 0; i < ds->count; i++)
            aclrt_tdt_item_free(ds->items[i]);
        free(ds->block);
    }
    free(ds->items);
    ds->items = NULL;
    ds->count = ds->cap = 0;
    ds->block = NULL;
    ds->received = false;
    ds->mem = ACLRT_TDT_MEM_UNKNOWN;
}

/* Give a dataset the items a receive made (an array of n, taken) and the message they point into (taken). */
ACLRT_INTERNAL void aclrt_tdt_dataset_adopt(acltdtDataset *ds, acltdtDataItem **items, size_t n, void *block)
{
    aclrt_tdt_dataset_clear(ds);
    for (size_t i = 0; i < n; i++)
        items[i]->owner = ds;
    ds->items = items;
    ds->count = ds->cap = n;
    ds->block = block;
    ds->received = true;
}

ACLRT_API acltdtDataset *acltdtCreateDataset(void)
{
    ACLRT_ENTER();
    acltdtDataset *ds = (acltdtDataset *)calloc(1, sizeof *ds);
    if (ds == NULL) {
        aclrt_fail(ACL_ERROR_BAD_ALLOC, "out of memory for a dataset");
        return NULL;
    }
    ds->magic = ACLRT_TDT_DATASET_MAGIC;
    return ds;
}

ACLRT_API aclError acltdtDestroyDataset(acltdtDataset *dataset)
{
    ACLRT_ENTER();
    if (!aclrt_tdt_dataset_ok(dataset))
        return ACL_ERROR_INVALID_PARAM;
    aclrt_tdt_dataset_clear(dataset);
    dataset->magic = 0;
    free(dataset);
    return ACL_SUCCESS;
}

ACLRT_API aclError acltdtAddDataItem(acltdtDataset *dataset, acltdtDataItem *dataItem)
{
    ACLRT_ENTER();
    if (!aclrt_tdt_dataset_ok(dataset) || !aclrt_tdt_item_ok(dataItem, "dataItem"))
        return ACL_ERROR_INVALID_PARAM;
    if (dataset->received)
        return aclrt_fail(ACL_ERROR_FEATURE_UNSUPPORTED,
                          "dataset %p holds the items a receive made; items cannot be added to it", (void *)dataset);
    if (dataItem->owner != NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "dataItem %p belongs to a received dataset", (void *)dataItem);
    if (dataItem->data != NULL) {
        enum aclrt_tdt_mem mem = aclrt_mem_device_of(dataItem->data, dataItem->size) != NULL ? ACLRT_TDT_MEM_DEVICE
                                                                                            : ACLRT_TDT_MEM_HOST;
        if (dataset->mem != ACLRT_TDT_MEM_UNKNOWN && dataset->mem != mem)
            return aclrt_fail(ACL_ERROR_INVALID_PARAM,
                              "the items of a dataset must be all in host memory or all in device memory "
                              "(the dataset's are in %s memory, this item's data is not)",
                              dataset->mem == ACLRT_TDT_MEM_HOST ? "host" : "device");
        dataset->mem = mem;
    }
    if (dataset->count == dataset->cap) {
        size_t cap = dataset->cap ? dataset->cap * 2 : 4;
        acltdtDataItem **items = (acltdtDataItem **)realloc(dataset->items, cap * sizeof *items);
        if (items == NULL)
            return aclrt_fail(ACL_ERROR_BAD_ALLOC, "out of memory for %zu items", cap);
        dataset->items = items;
        dataset->cap = cap;
    }
    dataset->items[dataset->count++] = dataItem;
    return ACL_SUCCESS;
}

ACLRT_API acltdtDataItem *acltdtGetDataItem(const acltdtDataset *dataset, size_t index)
{
    ACLRT_ENTER();
    if (!aclrt_tdt_dataset_ok(dataset))
        return NULL;
    if (index >= dataset->count) {
        aclrt_fail(ACL_ERROR_INVALID_PARAM, "index %zu is not below the dataset's size %zu", index, dataset->count);
        return NULL;
    }
    return dataset->items[index];
}

ACLRT_API size_t acltdtGetDatasetSize(const acltdtDataset *dataset)
{
    ACLRT_ENTER();
    return aclrt_tdt_dataset_ok(dataset) ? dataset->count : 0;
}

ACLRT_API const char *acltdtGetDatasetName(const acltdtDataset *dataset)
{
    ACLRT_ENTER();
    /* A name is what a device's outfeed gives the datasets it sends; a program's datasets have none. */
    return aclrt_tdt_dataset_ok(dataset) ? "" : NULL;
}

#endif /* ACLRT_IMPL_TDT_TDT_DATASET_H */
