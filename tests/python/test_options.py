"""The `acl` module: data buffers, device capabilities, runtime options (make test-python)."""
import ctypes
import unittest

import acl
from test_acl import OK

INVALID_PARAM = acl.ACL_ERROR_INVALID_PARAM


def setUpModule():
    ret = acl.init()
    assert ret in (OK, acl.ACL_ERROR_REPEAT_INITIALIZE), ret
    assert acl.rt.set_device(0) == OK


def tearDownModule():
    acl.rt.reset_device(0)
    acl.finalize()


class TestDataBuffers(unittest.TestCase):
    def test_a_buffer_describes_the_callers_memory(self):
        a, b = ctypes.create_string_buffer(16), ctypes.create_string_buffer(40)
        buf = acl.create_data_buffer(ctypes.addressof(a), 16)
        self.assertNotEqual(buf, 0)
        self.assertEqual(acl.get_data_buffer_addr(buf), ctypes.addressof(a))
        self.assertEqual(acl.get_data_buffer_size_v2(buf), 16)
        self.assertEqual(acl.update_data_buffer(buf, ctypes.addressof(b), 40), OK)
        self.assertEqual(acl.get_data_buffer_addr(buf), ctypes.addressof(b))
        self.assertEqual(acl.get_data_buffer_size(buf), 40)
        self.assertEqual(acl.destroy_data_buffer(buf), OK)

    def test_a_null_buffer_is_refused(self):
        self.assertEqual(acl.destroy_data_buffer(None), INVALID_PARAM)
        self.assertEqual(acl.update_data_buffer(0, None, 0), INVALID_PARAM)
        self.assertEqual(acl.get_data_buffer_addr(None), 0)
        self.assertEqual(acl.get_data_buffer_size_v2(None), 0)


class TestOptions(unittest.TestCase):
    def test_capabilities_are_the_device_infos(self):
        cores, ret = acl.get_device_capability(0, acl.ACL_DEVICE_INFO_AI_CORE_NUM)
        self.assertEqual(ret, OK)
        self.assertGreater(cores, 0)
        self.assertEqual(acl.get_device_capability(0, acl.ACL_DEVICE_INFO_UNDEFINED), (0, INVALID_PARAM))

    def test_system_parameter_options_are_kept(self):
        self.assertEqual(acl.rt.set_sys_param_opt(acl.ACL_OPT_DETERMINISTIC, 1), OK)
        self.assertEqual(acl.rt.get_sys_param_opt(acl.ACL_OPT_DETERMINISTIC), (1, OK))
        self.assertEqual(acl.rt.ctx_set_sys_param_opt(acl.ACL_OPT_ENABLE_DEBUG_KERNEL, 1), OK)
        self.assertEqual(acl.rt.ctx_get_sys_param_opt(acl.ACL_OPT_ENABLE_DEBUG_KERNEL), (1, OK))
        self.assertEqual(acl.rt.ctx_get_sys_param_opt(acl.ACL_OPT_ENABLE_KERNEL_EARLY_START), (0, INVALID_PARAM))

    def test_op_execute_timeouts_in_whole_milliseconds(self):
        self.assertEqual(acl.rt.get_op_time_out_interval(), (1000, OK))
        self.assertEqual(acl.rt.set_op_execute_time_out_v2(1500), (2000, OK))
        self.assertEqual(acl.rt.get_op_execute_timeout(), (2, OK))
        self.assertEqual(acl.rt.set_op_execute_time_out_with_ms(5), OK)
        self.assertEqual(acl.rt.get_op_execute_timeout(), (5, OK))
        self.assertEqual(acl.rt.set_op_execute_time_out(0), OK)  # no limit
        self.assertEqual(acl.rt.get_op_execute_timeout(), (0xFFFFFFFF, OK))


if __name__ == "__main__":
    unittest.main()
