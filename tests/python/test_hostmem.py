"""The `acl` module: host registration and managed memory (make test-python).

On the host backend a device reaches registered host memory at its host
address; managed memory is memory both sides read and write.
"""
import unittest

import acl
from test_acl import OK

INVALID_PARAM = acl.ACL_ERROR_INVALID_PARAM
RT_PARAM_INVALID = acl.ACL_ERROR_RT_PARAM_INVALID


def setUpModule():
    ret = acl.init()
    assert ret in (OK, acl.ACL_ERROR_REPEAT_INITIALIZE), ret
    assert acl.rt.set_device(0) == OK


def tearDownModule():
    acl.rt.reset_device(0)
    acl.finalize()


class TestHostRegister(unittest.TestCase):
    def setUp(self):
        self.host, ret = acl.rt.malloc_host(8192)
        self.assertEqual(ret, OK)
        self.addCleanup(acl.rt.free_host, self.host)

    def test_register_maps_the_range_until_unregistered(self):
        self.assertEqual(acl.rt.host_get_device_pointer(self.host), (0, RT_PARAM_INVALID))
        dev, ret = acl.rt.host_register(self.host, 8192, acl.ACL_HOST_REGISTER_MAPPED)
        self.assertEqual(ret, OK)
        self.assertEqual(dev, self.host)
        # Any address inside the range has a device address; the range may not be registered twice.
        self.assertEqual(acl.rt.host_get_device_pointer(self.host + 100, 0), (self.host + 100, OK))
        self.assertEqual(acl.rt.host_register(self.host, 8192, acl.ACL_HOST_REGISTER_MAPPED)[1], RT_PARAM_INVALID)
        # The device address reaches the same bytes.
        self.assertEqual(acl.rt.memset(self.host, 16, 0x5A, 16), OK)
        self.assertEqual(acl.util.ptr_to_bytes(dev, 16), b"\x5a" * 16)
        self.assertEqual(acl.rt.host_unregister(self.host + 100), RT_PARAM_INVALID)
        self.assertEqual(acl.rt.host_unregister(self.host), OK)
        self.assertEqual(acl.rt.host_unregister(self.host), RT_PARAM_INVALID)
        self.assertEqual(acl.rt.host_get_device_pointer(self.host), (0, RT_PARAM_INVALID))

    def test_register_v2(self):
        # PINNED is for pageable memory; malloc_host memory is the runtime's pinned memory already.
        self.assertEqual(acl.rt.host_register_v2(self.host, 4096, acl.ACL_HOST_REG_MAPPED | acl.ACL_HOST_REG_PINNED),
                         RT_PARAM_INVALID)
        self.assertEqual(acl.rt.host_register_v2(self.host, 4096, acl.ACL_HOST_REG_MAPPED), OK)
        self.assertEqual(acl.rt.host_get_device_pointer(self.host), (self.host, OK))
        self.assertEqual(acl.rt.host_unregister(self.host), OK)

    def test_bad_input(self):
        self.assertEqual(acl.rt.host_register(0, 4096, acl.ACL_HOST_REGISTER_MAPPED), (0, INVALID_PARAM))
        self.assertEqual(acl.rt.host_register(self.host, 0, acl.ACL_HOST_REGISTER_MAPPED), (0, INVALID_PARAM))
        self.assertEqual(acl.rt.host_register(self.host, 4096, acl.ACL_HOST_REGISTER_READONLY),
                         (0, acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT))
        self.assertEqual(acl.rt.host_register(self.host, 4096, 3), (0, RT_PARAM_INVALID))
        self.assertEqual(acl.rt.host_register_v2(None, 4096, acl.ACL_HOST_REG_MAPPED), INVALID_PARAM)
        self.assertEqual(acl.rt.host_register_v2(self.host, 4096, 0), RT_PARAM_INVALID)
        self.assertEqual(acl.rt.host_register_v2(self.host, 4096, acl.ACL_HOST_REG_READONLY),
                         acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT)
        self.assertEqual(acl.rt.host_get_device_pointer(0), (0, INVALID_PARAM))
        self.assertEqual(acl.rt.host_get_device_pointer(self.host, 1), (0, INVALID_PARAM))
        self.assertEqual(acl.rt.host_unregister(0), INVALID_PARAM)
        with self.assertRaises(OverflowError):
            acl.rt.host_register(self.host, -1, acl.ACL_HOST_REGISTER_MAPPED)
        with self.assertRaises(TypeError):
            acl.rt.host_unregister("x")


class TestManaged(unittest.TestCase):
    def test_managed_memory_is_read_and_written_by_the_host(self):
        ptr, ret = acl.rt.mem_alloc_managed(4096, acl.ACL_RT_MEM_ATTACH_GLOBAL)
        self.assertEqual(ret, OK)
        self.assertNotEqual(ptr, 0)
        data = bytes(range(64))
        src = acl.util.bytes_to_ptr(data)
        self.assertEqual(acl.rt.memcpy(ptr, 4096, src, 64, acl.ACL_MEMCPY_HOST_TO_DEVICE), OK)
        self.assertEqual(acl.util.ptr_to_bytes(ptr, 64), data)
        self.assertEqual(acl.rt.free(ptr), OK)

    def test_bad_input(self):
        self.assertEqual(acl.rt.mem_alloc_managed(4096, 0), (0, INVALID_PARAM))
        self.assertEqual(acl.rt.mem_alloc_managed(0, acl.ACL_RT_MEM_ATTACH_GLOBAL), (0, RT_PARAM_INVALID))
        with self.assertRaises(OverflowError):
            acl.rt.mem_alloc_managed(-1, acl.ACL_RT_MEM_ATTACH_GLOBAL)

    def test_constants(self):
        self.assertEqual(acl.ACL_RT_MEM_ATTACH_GLOBAL, 1)
        self.assertEqual((acl.ACL_HOST_REG_MAPPED, acl.ACL_HOST_REG_PINNED), (0x2, 0x10000000))
        self.assertEqual(acl.ACL_HOST_REGISTER_MAPPED, 0)


if __name__ == "__main__":
    unittest.main()
