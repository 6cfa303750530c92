"""The `acl` module: device limits, atomics, groups and the abort of a device (make test-python)."""
import unittest

import acl
from test_acl import OK


def setUpModule():
    ret = acl.init()
    assert ret in (OK, acl.ACL_ERROR_REPEAT_INITIALIZE), ret
    assert acl.rt.set_device(0) == OK


def tearDownModule():
    acl.rt.device_set_limit(acl.ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, 0)
    acl.rt.reset_device(0)
    acl.finalize()


class TestDeviceProfile(unittest.TestCase):
    def test_simd_stack_limit_rounds_and_reads_back(self):
        self.assertEqual(acl.rt.device_set_limit(acl.ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, 40000), OK)
        self.assertEqual(acl.rt.device_get_limit(acl.ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE), (49152, OK))
        self.assertEqual(acl.rt.device_set_limit(acl.ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, 1 << 20),
                         acl.ACL_ERROR_RT_PARAM_INVALID)
        self.assertEqual(acl.rt.device_set_limit(acl.ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, 0), OK)
        self.assertEqual(acl.rt.device_get_limit(acl.ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE), (32768, OK))

    def test_simt_limits_are_not_supported(self):
        self.assertEqual(acl.rt.device_get_limit(acl.ACL_RT_DEV_LIMIT_SIMT_STACK_SIZE),
                         (0, acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT))

    def test_atomics_of_the_default_profile_are_none(self):
        ops = [acl.ACL_RT_ATOMIC_OPERATION_INTEGER_ADD, acl.ACL_RT_ATOMIC_OPERATION_FLOAT_MAX]
        self.assertEqual(acl.rt.device_get_host_atomic_capabilities(ops, 0), ([0, 0], OK))
        self.assertEqual(acl.rt.device_get_host_atomic_capabilities([], 0),
                         (None, acl.ACL_ERROR_RT_PARAM_INVALID))
        self.assertEqual(acl.rt.device_get_p2p_atomic_capabilities(ops, 0, 0),
                         (None, acl.ACL_ERROR_RT_INVALID_DEVICEID))
        with self.assertRaises(TypeError):
            acl.rt.device_get_host_atomic_capabilities(3, 0)

    def test_ts_and_primary_context(self):
        self.assertEqual(acl.rt.set_ts_device(acl.ACL_TS_ID_AIVECTOR), OK)
        self.assertEqual(acl.rt.set_ts_device(acl.ACL_TS_ID_RESERVED), acl.ACL_ERROR_INVALID_PARAM)
        self.assertEqual(acl.rt.get_primary_ctx_state(0), (1, OK))
        self.assertEqual(acl.rt.get_primary_ctx_state(-1), (0, acl.ACL_ERROR_RT_INVALID_DEVICEID))

    def test_one_group_holding_the_device(self):
        self.assertEqual(acl.rt.get_group_count(), (1, OK))
        info = acl.rt.create_group_info()
        self.assertNotEqual(info, 0)
        self.assertEqual(acl.rt.get_all_group_info(info), OK)
        self.assertEqual(acl.rt.get_group_info_detail(info, 0, acl.ACL_GROUP_AICORE_INT), (24, OK))
        self.assertEqual(acl.rt.get_group_info_detail(info, 0, acl.ACL_GROUP_GROUPID_INT), (0, OK))
        self.assertEqual(acl.rt.get_group_info_detail(info, 1, acl.ACL_GROUP_AICORE_INT),
                         (0, acl.ACL_ERROR_INVALID_PARAM))
        self.assertEqual(acl.rt.set_group(0), OK)
        self.assertEqual(acl.rt.set_group(2), acl.ACL_ERROR_RT_GROUP_NOT_CREATE)
        self.assertEqual(acl.rt.destroy_group_info(info), OK)
        self.assertEqual(acl.rt.destroy_group_info(0), acl.ACL_ERROR_INVALID_PARAM)

    def test_device_task_abort(self):
        self.assertEqual(acl.rt.device_task_abort(0, 1000), OK)
        self.assertEqual(acl.rt.device_task_abort(0, 36 * 60 * 1000 + 1), acl.ACL_ERROR_RT_PARAM_INVALID)
        self.assertEqual(acl.rt.device_task_abort(64, 0), acl.ACL_ERROR_RT_INVALID_DEVICEID)


if __name__ == "__main__":
    unittest.main()
