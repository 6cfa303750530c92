"""The `acl` module: physical memory and virtual address ranges (make test-python)."""
import unittest

import acl
from test_acl import OK

INVALID_PARAM = acl.ACL_ERROR_INVALID_PARAM
RT_PARAM_INVALID = acl.ACL_ERROR_RT_PARAM_INVALID
INVALID_HANDLE = acl.ACL_ERROR_RT_INVALID_HANDLE


def setUpModule():
    ret = acl.init()
    assert ret in (OK, acl.ACL_ERROR_REPEAT_INITIALIZE), ret
    assert acl.rt.set_device(0) == OK


def tearDownModule():
    acl.rt.reset_device(0)
    acl.finalize()


def device_prop(**changes):
    prop = {
        "handleType": acl.ACL_MEM_HANDLE_TYPE_NONE,
        "allocationType": acl.ACL_MEM_ALLOCATION_TYPE_PINNED,
        "memAttr": acl.ACL_HBM_MEM_HUGE,
        "location": {"id": 0, "type": acl.ACL_MEM_LOCATION_TYPE_DEVICE},
        "reserve": 0,
    }
    prop.update(changes)
    return prop


class TestPhysicalMemory(unittest.TestCase):
    def setUp(self):
        self.granularity, ret = acl.rt.mem_get_allocation_granularity(device_prop(),
                                                                      acl.ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM)
        self.assertEqual(ret, OK)

    def test_granularity_is_two_mib_for_huge_pages(self):
        self.assertEqual(self.granularity, 2 << 20)
        self.assertEqual(acl.rt.mem_get_allocation_granularity(device_prop(),
                                                               acl.ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED),
                         (2 << 20, OK))

    def test_two_mappings_of_one_block_are_the_same_memory(self):
        g = self.granularity
        handle, ret = acl.rt.malloc_physical(g, device_prop(), 0)
        self.assertEqual(ret, OK)
        self.assertNotEqual(handle, 0)
        base, ret = acl.rt.reserve_mem_address(2 * g, 0, 0, 0)
        self.assertEqual(ret, OK)
        self.assertEqual(acl.rt.map_mem(base, g, 0, handle, 0), OK)
        self.assertEqual(acl.rt.map_mem(base + g, g, 0, handle, 0), OK)
        data = b"physical"
        self.assertEqual(acl.rt.memcpy(base, len(data), acl.util.bytes_to_ptr(data), len(data),
                                       acl.ACL_MEMCPY_HOST_TO_DEVICE), OK)
        self.assertEqual(acl.util.ptr_to_bytes(base + g, len(data)), data)
        self.assertEqual(acl.rt.free_physical(handle), OK)     # lives on in its mappings
        self.assertEqual(acl.util.ptr_to_bytes(base, len(data)), data)
        self.assertEqual(acl.rt.unmap_mem(base), OK)
        self.assertEqual(acl.rt.unmap_mem(base + g), OK)
        self.assertEqual(acl.rt.release_mem_address(base), OK)

    def test_stale_handles_and_addresses_get_the_c_codes(self):
        g = self.granularity
        handle, _ = acl.rt.malloc_physical(g, device_prop(), 0)
        base, _ = acl.rt.reserve_mem_address(g, 0, 0, 0)
        self.assertEqual(acl.rt.map_mem(base + 1, g, 0, handle, 0), RT_PARAM_INVALID)
        self.assertEqual(acl.rt.map_mem(base, g, 0, 0x1234, 0), INVALID_HANDLE)
        self.assertEqual(acl.rt.unmap_mem(base), RT_PARAM_INVALID)          # nothing mapped there
        self.assertEqual(acl.rt.free(base), RT_PARAM_INVALID)              # not aclrtMalloc memory
        self.assertEqual(acl.rt.free_physical(handle), OK)
        self.assertEqual(acl.rt.free_physical(handle), INVALID_HANDLE)
        self.assertEqual(acl.rt.map_mem(base, g, 0, handle, 0), INVALID_HANDLE)
        self.assertIn("aclrtMapMem", acl.get_recent_err_msg())
        self.assertEqual(acl.rt.release_mem_address(base), OK)
        self.assertEqual(acl.rt.release_mem_address(base), RT_PARAM_INVALID)
        self.assertEqual(acl.rt.free_physical(0), INVALID_PARAM)
        self.assertEqual(acl.rt.unmap_mem(0), INVALID_PARAM)

    def test_bad_sizes_flags_and_props_get_the_c_codes(self):
        g = self.granularity
        self.assertEqual(acl.rt.malloc_physical(0, device_prop(), 0), (0, INVALID_PARAM))
        self.assertEqual(acl.rt.malloc_physical(g, device_prop(), 1), (0, INVALID_PARAM))
        self.assertEqual(acl.rt.malloc_physical(g, None, 0), (0, INVALID_PARAM))
        self.assertEqual(acl.rt.malloc_physical(g, device_prop(handleType=acl.ACL_MEM_HANDLE_TYPE_POSIX), 0),
                         (0, INVALID_PARAM))
        self.assertEqual(acl.rt.reserve_mem_address(0, 0, 0, 0), (0, INVALID_PARAM))
        self.assertEqual(acl.rt.mem_get_allocation_granularity(device_prop(), 7), (0, RT_PARAM_INVALID))
        self.assertEqual(acl.rt.mem_get_allocation_granularity(None, 0), (0, INVALID_PARAM))

    def test_prop_must_be_a_dict_of_ints(self):
        with self.assertRaises(TypeError):
            acl.rt.malloc_physical(self.granularity, [0, 0, 0], 0)
        with self.assertRaises(TypeError):
            acl.rt.malloc_physical(self.granularity, device_prop(memAttr="huge"), 0)
        with self.assertRaises(TypeError):
            acl.rt.malloc_physical(self.granularity, device_prop(location=(0, 1)), 0)
        with self.assertRaises(ValueError):
            acl.rt.malloc_physical(self.granularity, device_prop(memattr=1), 0)
        with self.assertRaises(OverflowError):
            acl.rt.malloc_physical(self.granularity, device_prop(location={"id": -1, "type": 1}), 0)

    def test_missing_members_are_zero(self):
        # memAttr 0 is ACL_DDR_MEM: not an attribute physical memory can have
        self.assertEqual(acl.rt.malloc_physical(self.granularity, {}, 0), (0, INVALID_PARAM))
        handle, ret = acl.rt.malloc_physical(self.granularity, {"memAttr": acl.ACL_HBM_MEM_HUGE,
                                                                "location": {"type": acl.ACL_MEM_LOCATION_TYPE_DEVICE}}, 0)
        self.assertEqual(ret, OK)
        self.assertEqual(acl.rt.free_physical(handle), OK)


if __name__ == "__main__":
    unittest.main()
