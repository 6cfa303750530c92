"""The `acl` module: device information and resource limits (make test-python)."""
import unittest

import acl
from test_acl import OK

RT_PARAM_INVALID = acl.ACL_ERROR_RT_PARAM_INVALID
INVALID_DEVICE = acl.ACL_ERROR_RT_INVALID_DEVICEID
NOT_SUPPORTED = acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT


def setUpModule():
    ret = acl.init()
    assert ret in (OK, acl.ACL_ERROR_REPEAT_INITIALIZE), ret
    assert acl.rt.set_device(0) == OK


def tearDownModule():
    acl.rt.reset_device_res_limit(0)
    acl.rt.reset_device(0)
    acl.finalize()


# The default device profile, Ascend910B1 (ACLRT_PROFILE=host would report the machine's CPUs and RAM).
PROFILE = {acl.ACL_DEV_ATTR_AICPU_CORE_NUM: 6, acl.ACL_DEV_ATTR_AICORE_CORE_NUM: 24,
           acl.ACL_DEV_ATTR_CUBE_CORE_NUM: 24, acl.ACL_DEV_ATTR_VECTOR_CORE_NUM: 48,
           acl.ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE: 64 << 30}
CORES = {acl.ACL_RT_DEV_RES_CUBE_CORE: 24, acl.ACL_RT_DEV_RES_VECTOR_CORE: 48}


def cores(kind=acl.ACL_RT_DEV_RES_CUBE_CORE):
    return CORES[kind]


class TestDeviceInfo(unittest.TestCase):
    def test_core_counts_and_memory_are_the_profiles(self):
        for attr, want in PROFILE.items():
            self.assertEqual(acl.rt.get_device_info(0, attr), (want, OK))

    def test_what_a_cpu_lacks_is_zero_or_not_supported(self):
        self.assertEqual(acl.rt.get_device_info(0, acl.ACL_DEV_ATTR_WARP_SIZE), (0, OK))
        self.assertEqual(acl.rt.get_device_info(0, acl.ACL_DEV_ATTR_NPU_ARCH), (0, NOT_SUPPORTED))

    def test_bad_attribute_and_device_are_parameter_errors(self):
        self.assertEqual(acl.rt.get_device_info(0, 9999), (0, RT_PARAM_INVALID))
        self.assertIn("aclrtGetDeviceInfo", acl.get_recent_err_msg())
        count, _ = acl.rt.get_device_count()
        self.assertEqual(acl.rt.get_device_info(count, acl.ACL_DEV_ATTR_AICPU_CORE_NUM)[0], 0)
        self.assertNotEqual(acl.rt.get_device_info(count, acl.ACL_DEV_ATTR_AICPU_CORE_NUM)[1], OK)
        with self.assertRaises(OverflowError):
            acl.rt.get_device_info(-1, acl.ACL_DEV_ATTR_AICPU_CORE_NUM)   # the C argument is uint32

    def test_capabilities_answer_and_unknown_features_fail(self):
        for feature in (acl.ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV, acl.ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV):
            value, ret = acl.rt.get_device_capability(0, feature)
            self.assertEqual(ret, OK)
            self.assertIn(value, (acl.ACL_DEV_FEATURE_SUPPORT, acl.ACL_DEV_FEATURE_NOT_SUPPORT))
        self.assertEqual(acl.rt.get_device_capability(0, 3), (0, RT_PARAM_INVALID))

    def test_device_status_is_normal_and_end_on_failure(self):
        self.assertEqual(acl.rt.query_device_status(0), (acl.ACL_RT_DEVICE_STATUS_NORMAL, OK))
        count, _ = acl.rt.get_device_count()
        self.assertEqual(acl.rt.query_device_status(count), (acl.ACL_RT_DEVICE_STATUS_END, INVALID_DEVICE))

    def test_utilization_is_a_dict_of_not_available(self):
        info, ret = acl.rt.get_device_utilization_rate(0)
        self.assertEqual(ret, OK)
        self.assertEqual(info, {"cubeUtilization": -1, "vectorUtilization": -1, "aicpuUtilization": -1,
                                "memoryUtilization": -1})


class TestResourceLimits(unittest.TestCase):
    def tearDown(self):
        self.assertEqual(acl.rt.reset_device_res_limit(0), OK)

    def test_limits_start_at_the_core_count(self):
        for kind in (acl.ACL_RT_DEV_RES_CUBE_CORE, acl.ACL_RT_DEV_RES_VECTOR_CORE):
            self.assertEqual(acl.rt.get_device_res_limit(0, kind), (cores(kind), OK))
            self.assertEqual(acl.rt.get_res_in_current_thread(kind), (cores(kind), OK))

    def test_set_limit_is_seen_until_reset(self):
        self.assertEqual(acl.rt.set_device_res_limit(0, acl.ACL_RT_DEV_RES_VECTOR_CORE, 1), OK)
        self.assertEqual(acl.rt.get_device_res_limit(0, acl.ACL_RT_DEV_RES_VECTOR_CORE), (1, OK))
        self.assertEqual(acl.rt.get_res_in_current_thread(acl.ACL_RT_DEV_RES_VECTOR_CORE), (1, OK))
        self.assertEqual(acl.rt.get_device_res_limit(0, acl.ACL_RT_DEV_RES_CUBE_CORE), (cores(), OK))
        self.assertEqual(acl.rt.reset_device_res_limit(0), OK)
        self.assertEqual(acl.rt.get_device_res_limit(0, acl.ACL_RT_DEV_RES_VECTOR_CORE),
                         (cores(acl.ACL_RT_DEV_RES_VECTOR_CORE), OK))

    def test_limit_above_the_cores_or_of_an_unknown_type_fails(self):
        self.assertEqual(acl.rt.set_device_res_limit(0, acl.ACL_RT_DEV_RES_CUBE_CORE, cores() + 1), RT_PARAM_INVALID)
        self.assertEqual(acl.rt.get_device_res_limit(0, acl.ACL_RT_DEV_RES_CUBE_CORE), (cores(), OK))
        self.assertEqual(acl.rt.get_device_res_limit(0, 5), (0, RT_PARAM_INVALID))
        self.assertEqual(acl.rt.get_res_in_current_thread(5)[1], RT_PARAM_INVALID)
        with self.assertRaises(OverflowError):
            acl.rt.set_device_res_limit(0, acl.ACL_RT_DEV_RES_CUBE_CORE, 2 ** 32)


if __name__ == "__main__":
    unittest.main()
