"""The `acl` module: built-in tasks, reduce_async (make test-python)."""
import struct
import unittest

import acl
from test_acl import OK, RuntimeCase

SUM = acl.ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM
MAX = acl.ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX
MIN = acl.ACL_RT_MEMCPY_SDMA_AUTOMATIC_MIN


def setUpModule():
    ret = acl.init()
    assert ret in (OK, acl.ACL_ERROR_REPEAT_INITIALIZE), ret
    assert acl.rt.set_device(0) == OK


def tearDownModule():
    acl.rt.reset_device(0)
    acl.finalize()


class TestReduce(RuntimeCase):
    def setUp(self):
        super().setUp()
        self.buffers = []

    def tearDown(self):
        super().tearDown()
        for ptr in self.buffers:
            acl.rt.free(ptr)

    def device(self, data):
        ptr, ret = acl.rt.malloc(len(data), acl.ACL_MEM_MALLOC_HUGE_FIRST)
        self.assertEqual(ret, OK)
        self.buffers.append(ptr)
        self.assertEqual(acl.rt.memcpy(ptr, len(data), acl.util.bytes_to_ptr(data), len(data),
                                       acl.ACL_MEMCPY_HOST_TO_DEVICE), OK)
        return ptr

    def reduce(self, fmt, dst_values, src_values, kind, dtype):
        dst = self.device(struct.pack(fmt, *dst_values))
        src = self.device(struct.pack(fmt, *src_values))
        stream = self.stream()
        size = struct.calcsize(fmt)
        self.assertEqual(acl.rt.reduce_async(dst, src, size, kind, dtype, stream), OK)
        self.assertEqual(acl.rt.synchronize_stream(stream), OK)
        return struct.unpack(fmt, acl.util.ptr_to_bytes(dst, size))

    def test_float_sum_max_min(self):
        self.assertEqual(self.reduce("4f", (1, 2, 3, 4), (10, 0.5, 30, -4), SUM, acl.ACL_FLOAT), (11, 2.5, 33, 0))
        self.assertEqual(self.reduce("4f", (1, 2, 3, 4), (10, 0.5, 30, -4), MAX, acl.ACL_FLOAT), (10, 2, 30, 4))
        self.assertEqual(self.reduce("4f", (1, 2, 3, 4), (10, 0.5, 30, -4), MIN, acl.ACL_FLOAT), (1, 0.5, 3, -4))

    def test_integer_sum_wraps(self):
        self.assertEqual(self.reduce("2i", (2 ** 31 - 1, -5), (1, 2), SUM, acl.ACL_INT32), (-2 ** 31, -3))
        self.assertEqual(self.reduce("2b", (127, 1), (1, 1), SUM, acl.ACL_INT8), (-128, 2))

    def test_reserve_may_be_given_as_none(self):
        dst = self.device(struct.pack("f", 1))
        src = self.device(struct.pack("f", 2))
        stream = self.stream()
        self.assertEqual(acl.rt.reduce_async(dst, src, 4, SUM, acl.ACL_FLOAT, stream, None), OK)
        self.assertEqual(acl.rt.synchronize_stream(stream), OK)
        self.assertEqual(struct.unpack("f", acl.util.ptr_to_bytes(dst, 4)), (3,))

    def test_bad_input_gets_the_c_codes(self):
        dst = self.device(bytes(16))
        src = self.device(bytes(16))
        stream = self.stream()
        self.assertEqual(acl.rt.reduce_async(dst, src, 16, acl.ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL, acl.ACL_FLOAT,
                                             stream), acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT)
        self.assertEqual(acl.rt.reduce_async(dst, src, 16, 99, acl.ACL_FLOAT, stream), acl.ACL_ERROR_RT_PARAM_INVALID)
        self.assertEqual(acl.rt.reduce_async(0, src, 16, SUM, acl.ACL_FLOAT, stream), acl.ACL_ERROR_INVALID_PARAM)
        self.assertEqual(acl.rt.reduce_async(dst, src, 16, SUM, 999, stream), acl.ACL_ERROR_INVALID_PARAM)
        self.assertEqual(acl.rt.reduce_async(dst, src, 16, SUM, acl.ACL_FLOAT, 0x3039),
                         acl.ACL_ERROR_RT_INVALID_HANDLE)
        self.assertIn("aclrtReduceAsync", acl.get_recent_err_msg())
        self.assertEqual(acl.rt.synchronize_stream(stream), OK)
        self.assertEqual(acl.util.ptr_to_bytes(dst, 16), bytes(16))   # nothing ran


if __name__ == "__main__":
    unittest.main()
