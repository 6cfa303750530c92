/*
 * impl/tdt/tdt_item.h - data items: one tensor of a dataset (acltdtCreateDataItem and its getters).
 *
 * An item keeps the program's data pointer as given (nothing is copied but
 * the dims), as CANN's does; a send copies the bytes (tdt_channel.h). An
 * item a receive made points into the received message, which its dataset
 * owns: `owner` names that dataset, and acltdtDestroyDataItem refuses such
 * an item (acltdtDestroyDataset frees it). Every item starts with a magic
 * word, cleared when it is freed, so that a pointer to something else (a
 * dataset, a handle) passed as an item is refused instead of read as one.
 */
#ifndef ACLRT_IMPL_TDT_TDT_ITEM_H
#define ACLRT_IMPL_TDT_TDT_ITEM_H

#include "../core/base.h"
#include "../core/error.h"
#include "../core/thread.h"

#define ACLRT_TDT_ITEM_MAGIC 0x74647449u /* "tdtI" */
#define ACLRT_TDT_MAX_DIMS 128           /* CANN's limit on an item's dims */

struct acltdtDataItem {
    uint32_t magic;
    acltdtTensorType type;
    aclDataType data_type;
    uint16_t slice_num, slice_id; /* 0 and 0 unless a receive set them */
    void *data;
    size_t size;
    const struct acltdtDataset *owner; /* the received dataset that frees it; NULL: the program's */
    size_t dim_num;
    int64_t dims[]; /* dim_num of them */
};

/* A valid item, or NULL after reporting `what` (the parameter's name) as bad. */
ACLRT_INLINE bool aclrt_tdt_item_ok(const acltdtDataItem *item, const char *what)
{
    if (item == NULL) {
        aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL", what);
        return false;
    }
    if (item->magic != ACLRT_TDT_ITEM_MAGIC) {
        aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s %p is not a data item (acltdtCreateDataItem)", what, (const void *)item);
        return false;
    }
    return true;
}

/* A new item with a copy of the dims, or NULL when out of memory (reported). */
ACLRT_INTERNAL acltdtDataItem *aclrt_tdt_item_new(acltdtTensorType type, const int64_t *dims, size_t dim_num,
                                                  aclDataType data_type, void *data, size_t size)
{
    acltdtDataItem *item = (acltdtDataItem *)malloc(sizeof *item + dim_num * sizeof(int64_t));
    if (item == NULL) {
        aclrt_fail(ACL_ERROR_BAD_ALLOC, "out of memory for a data item of %zu dims", dim_num);
        return NULL;
    }
    item->magic = ACLRT_TDT_ITEM_MAGIC;
    item->type = type;
    item->data_type = data_type;
    item->slice_num = 0;
    item->slice_id = 0;
    item->data = data;
    item->size = size;
    item->owner = NULL;
    item->dim_num = dim_num;
    if (dim_num > 0)
        memcpy(item->dims, dims, dim_num * sizeof(int64_t));
    return item;
}

ACLRT_INTERNAL void aclrt_tdt_item_free(acltdtDataItem *item)
{
    item->magic = 0;
    free(item);
}

ACLRT_API acltdtDataItem *acltdtCreateDataItem(acltdtTensorType tdtType, const int64_t *dims, size_t dimNum,
                                               aclDataType dataType, void *data, size_t size)
{
    ACLRT_ENTER();
    if (dims == NULL && dimNum != 0) {
        aclrt_fail(ACL_ERROR_INVALID_PARAM, "dims is NULL but dimNum is %zu (NULL dims need dimNum 0)", dimNum);
        return NULL;
    }
    if (dims != NULL && dimNum == 0) {
        aclrt_fail(ACL_ERROR_INVALID_PARAM, "dimNum is 0 but dims is not NULL (dims need dimNum > 0)");
        return NULL;
    }
    if (dimNum > ACLRT_TDT_MAX_DIMS) {
        aclrt_fail(ACL_ERROR_INVALID_PARAM, "dimNum %zu is more than %d", dimNum, ACLRT_TDT_MAX_DIMS);
        return NULL;
    }
    if ((int)tdtType < (int)ACL_TENSOR_DATA_UNDEFINED || (int)tdtType > (int)ACL_TENSOR_DATA_END_TENSOR) {
        aclrt_fail(ACL_ERROR_INVALID_PARAM, "tdtType %d is not an acltdtTensorType", (int)tdtType);
        return NULL;
    }
    if (tdtType != ACL_TENSOR_DATA_TENSOR) {
        /* End of sequence, abnormal, ...: a marker without a tensor, as CANN makes it. */
        if (dims != NULL) {
            aclrt_fail(ACL_ERROR_INVALID_PARAM, "dims must be NULL for tdtType %d (only a TENSOR item has dims)",
                       (int)tdtType);
            return NULL;
        }
        return aclrt_tdt_item_new(tdtType, NULL, 0, ACL_DT_UNDEFINED, NULL, 0);
    }
    return aclrt_tdt_item_new(tdtType, dims, dimNum, dataType, data, size);
}

ACLRT_API aclError acltdtDestroyDataItem(acltdtDataItem *dataItem)
{
    ACLRT_ENTER();
    if (!aclrt_tdt_item_ok(dataItem, "dataItem"))
        return ACL_ERROR_INVALID_PARAM;
    if (dataItem->owner != NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM,
                          "dataItem %p belongs to the dataset %p a receive filled; acltdtDestroyDataset frees it",
                          (void *)dataItem, (const void *)dataItem->owner);
    aclrt_tdt_item_free(dataItem);
    return ACL_SUCCESS;
}

ACLRT_API acltdtTensorType acltdtGetTensorTypeFromItem(const acltdtDataItem *dataItem)
{
    ACLRT_ENTER();
    return aclrt_tdt_item_ok(dataItem, "dataItem") ? dataItem->type : ACL_TENSOR_DATA_UNDEFINED;
}

ACLRT_API aclDataType acltdtGetDataTypeFromItem(const acltdtDataItem *dataItem)
{
    ACLRT_ENTER();
    return aclrt_tdt_item_ok(dataItem, "dataItem") ? dataItem->data_type : ACL_DT_UNDEFINED;
}

ACLRT_API void *acltdtGetDataAddrFromItem(const acltdtDataItem *dataItem)
{
    ACLRT_ENTER();
    return aclrt_tdt_item_ok(dataItem, "dataItem") ? dataItem->data : NULL;
}

ACLRT_API size_t acltdtGetDataSizeFromItem(const acltdtDataItem *dataItem)
{
    ACLRT_ENTER();
    return aclrt_tdt_item_ok(dataItem, "dataItem") ? dataItem->size : 0;
}

ACLRT_API size_t acltdtGetDimNumFromItem(const acltdtDataItem *dataItem)
{
    ACLRT_ENTER();
    return aclrt_tdt_item_ok(dataItem, "dataItem") ? dataItem->dim_num : 0;
}

ACLRT_API aclError acltdtGetDimsFromItem(const acltdtDataItem *dataItem, int64_t *dims, size_t dimNum)
{
    ACLRT_ENTER();
    if (!aclrt_tdt_item_ok(dataItem, "dataItem"))
        return ACL_ERROR_INVALID_PARAM;
    if (dims == NULL && dimNum != 0)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "dims (output) is NULL but dimNum is %zu", dimNum);
    if (dims != NULL && dimNum == 0)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "dimNum is 0 but dims (output) is not NULL");
    if (dimNum < dataItem->dim_num)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "dimNum %zu is less than the item's %zu dims", dimNum,
                          dataItem->dim_num);
    if (dataItem->dim_num > 0)
        memcpy(dims, dataItem->dims, dataItem->dim_num * sizeof(int64_t));
    return ACL_SUCCESS;
}

ACLRT_API aclError acltdtGetSliceInfoFromItem(const acltdtDataItem *dataItem, size_t *sliceNum, size_t *sliceId)
{
    ACLRT_ENTER();
    if (!aclrt_tdt_item_ok(dataItem, "dataItem"))
        return ACL_ERROR_INVALID_PARAM;
    if (sliceNum == NULL || sliceId == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s (output) is NULL", sliceNum == NULL ? "sliceNum" : "sliceId");
    *sliceNum = dataItem->slice_num;
    *sliceId = dataItem->slice_id;
    return ACL_SUCCESS;
}

#endif /* ACLRT_IMPL_TDT_TDT_ITEM_H */
