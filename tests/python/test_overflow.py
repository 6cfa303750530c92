"""The `acl` module: floating-point overflow detection (make test-python).

An overflow is made by a Python host kernel (1e308 * 10 is Inf) on a stream
with the overflow switch on; the status is read in stream order into device
memory and copied back.
"""
import struct
import unittest

import acl
from test_acl import OK, RuntimeCase

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


def overflowing_kernel(block, blocks, args):
    big = 1e308
    args.append(big * 10.0)
    return 0


class TestOverflow(RuntimeCase):
    def setUp(self):
        super().setUp()
        self.status, ret = acl.rt.malloc(64, acl.ACL_MEM_MALLOC_HUGE_FIRST)
        self.assertEqual(ret, OK)

    def tearDown(self):
        super().tearDown()
        acl.rt.free(self.status)

    def read_status(self, stream):
        self.assertEqual(acl.rt.memset(self.status, 64, 0xFF, 64), OK)
        self.assertEqual(acl.rt.get_overflow_status(self.status, 64, stream), OK)
        self.assertEqual(acl.rt.synchronize_stream(stream), OK)
        return struct.unpack("16I", acl.util.ptr_to_bytes(self.status, 64))

    def test_device_mode_is_infnan_until_saturation_is_set(self):
        self.assertEqual(acl.rt.get_device_sat_mode(), (acl.ACL_RT_OVERFLOW_MODE_INFNAN, OK))
        self.assertEqual(acl.rt.set_device_sat_mode(acl.ACL_RT_OVERFLOW_MODE_SATURATION), OK)
        self.assertEqual(acl.rt.get_device_sat_mode(), (acl.ACL_RT_OVERFLOW_MODE_SATURATION, OK))
        self.assertEqual(acl.rt.set_device_sat_mode(acl.ACL_RT_OVERFLOW_MODE_INFNAN), OK)
        self.assertEqual(acl.rt.set_device_sat_mode(acl.ACL_RT_OVERFLOW_MODE_UNDEF), RT_PARAM_INVALID)
        self.assertEqual(acl.rt.get_device_sat_mode(), (acl.ACL_RT_OVERFLOW_MODE_INFNAN, OK))

    def test_stream_switch_is_off_until_set(self):
        stream = self.stream()
        self.assertEqual(acl.rt.get_stream_overflow_switch(stream), (0, OK))
        self.assertEqual(acl.rt.set_stream_overflow_switch(stream, 1), OK)
        self.assertEqual(acl.rt.get_stream_overflow_switch(stream), (1, OK))
        self.assertEqual(acl.rt.set_stream_overflow_switch(stream, 2), INVALID_PARAM)
        self.assertEqual(acl.rt.get_stream_overflow_switch(stream), (1, OK))

    def test_overflow_on_a_watched_stream_sets_the_status_until_reset(self):
        stream = self.stream()
        self.assertEqual(acl.rt.set_stream_overflow_switch(stream, 1), OK)
        self.assertEqual(acl.rt.reset_overflow_status(stream), OK)
        self.assertEqual(self.read_status(stream), (0,) * 16)
        results = []
        self.assertEqual(acl.rtx.launch_host_kernel(stream, 1, overflowing_kernel, results), OK)
        self.assertEqual(self.read_status(stream), (1,) + (0,) * 15)
        self.assertEqual(results, [float("inf")])
        self.assertEqual(acl.rt.reset_overflow_status(stream), OK)
        self.assertEqual(self.read_status(stream), (0,) * 16)

    def test_overflow_on_an_unwatched_stream_is_not_seen(self):
        stream = self.stream()
        self.assertEqual(acl.rt.reset_overflow_status(stream), OK)
        self.assertEqual(acl.rtx.launch_host_kernel(stream, 1, overflowing_kernel, []), OK)
        self.assertEqual(self.read_status(stream), (0,) * 16)

    def test_bad_input_gets_the_c_codes(self):
        stream = self.stream()
        self.assertEqual(acl.rt.get_overflow_status(self.status, 32, stream), RT_PARAM_INVALID)
        self.assertEqual(acl.rt.get_overflow_status(0, 64, stream), INVALID_PARAM)
        self.assertEqual(acl.rt.get_overflow_status(self.status, 64, 0x3039), INVALID_HANDLE)
        self.assertEqual(acl.rt.reset_overflow_status(0x3039), INVALID_HANDLE)
        self.assertIn("aclrtResetOverflowStatus", acl.get_recent_err_msg())
        self.assertEqual(acl.rt.set_stream_overflow_switch(0x3039, 1), INVALID_HANDLE)
        self.assertEqual(acl.rt.get_stream_overflow_switch(0x3039), (0, INVALID_HANDLE))
        with self.assertRaises(OverflowError):
            acl.rt.get_overflow_status(self.status, -64, stream)


if __name__ == "__main__":
    unittest.main()
