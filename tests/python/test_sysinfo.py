"""The `acl` module: system and version (make test-python)."""
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


class TestSocAndVersion(unittest.TestCase):
    def test_soc_name_is_the_device_profiles(self):
        self.assertEqual(acl.get_soc_name(), "Ascend910B1")   # the default profile, whatever the backend

    def test_runtime_package_version_is_the_module_version(self):
        version, ret = acl.sys_get_version_str("runtime")
        self.assertEqual(ret, OK)
        self.assertEqual(version, acl.__version__)
        num, ret = acl.sys_get_version_num("runtime")
        self.assertEqual(ret, OK)
        major, minor, patch = (int(part) for part in version.split("."))
        self.assertEqual(num, major * 10000000 + minor * 100000 + patch * 1000)

    def test_other_packages_are_not_installed(self):
        self.assertEqual(acl.sys_get_version_str("driver"), ("", acl.ACL_ERROR_INVALID_FILE))
        self.assertEqual(acl.sys_get_version_num("firmware"), (0, acl.ACL_ERROR_INVALID_FILE))

    def test_none_package_name_is_the_c_null(self):
        self.assertEqual(acl.sys_get_version_str(None), ("", INVALID_PARAM))
        self.assertEqual(acl.sys_get_version_num(None), (0, INVALID_PARAM))
        self.assertIn("aclsysGetVersionNum", acl.get_recent_err_msg())

    def test_arch_compatibility_is_the_own_soc_only(self):
        self.assertEqual(acl.rt.check_arch_compatibility(acl.get_soc_name()), (1, OK))
        self.assertEqual(acl.rt.check_arch_compatibility("Ascend910B4"), (0, OK))
        self.assertEqual(acl.rt.check_arch_compatibility(""), (0, RT_PARAM_INVALID))
        self.assertEqual(acl.rt.check_arch_compatibility(None), (0, RT_PARAM_INVALID))

    def test_string_arguments_must_be_str(self):
        with self.assertRaises(TypeError):
            acl.sys_get_version_str(1)
        with self.assertRaises(TypeError):
            acl.rt.check_arch_compatibility(b"aclrt-host")


class TestCannAttributes(unittest.TestCase):
    def test_list_holds_the_supported_attributes(self):
        attrs, ret = acl.get_cann_attribute_list()
        self.assertEqual(ret, OK)
        self.assertIsInstance(attrs, list)
        for attr in attrs:
            self.assertEqual(acl.get_cann_attribute(attr), (1, OK))

    def test_every_known_attribute_answers_zero_or_one(self):
        supported, _ = acl.get_cann_attribute_list()
        for attr in (acl.ACL_CANN_ATTR_INF_NAN, acl.ACL_CANN_ATTR_BF16, acl.ACL_CANN_ATTR_JIT_COMPILE):
            self.assertEqual(acl.get_cann_attribute(attr), (1 if attr in supported else 0, OK))

    def test_unknown_attribute_is_a_parameter_error(self):
        self.assertEqual(acl.get_cann_attribute(acl.ACL_CANN_ATTR_UNDEFINED), (0, INVALID_PARAM))
        self.assertEqual(acl.get_cann_attribute(77), (0, INVALID_PARAM))


class TestFloat16AndSizes(unittest.TestCase):
    def test_float16_bits_round_trip(self):
        for value, bits in ((1.0, 0x3C00), (-2.0, 0xC000), (0.5, 0x3800), (0.0, 0x0000), (65504.0, 0x7BFF)):
            self.assertEqual(acl.float_to_float16(value), bits)
            self.assertEqual(acl.float16_to_float(bits), value)

    def test_conversion_to_half_rounds_to_nearest_even(self):
        self.assertEqual(acl.float_to_float16(1.0 + 2 ** -11), 0x3C00)        # tie: to even
        self.assertEqual(acl.float_to_float16(1.0 + 3 * 2 ** -11), 0x3C02)    # tie: to even, upwards

    def test_conversion_to_half_saturates(self):
        self.assertEqual(acl.float_to_float16(1e9), 0x7BFF)
        self.assertEqual(acl.float_to_float16(-1e9), 0xFBFF)

    def test_float16_argument_is_sixteen_bits(self):
        with self.assertRaises(OverflowError):
            acl.float16_to_float(0x10000)
        with self.assertRaises(OverflowError):
            acl.float16_to_float(-1)
        with self.assertRaises(TypeError):
            acl.float_to_float16("1.0")

    def test_data_type_sizes(self):
        self.assertEqual(acl.data_type_size(acl.ACL_FLOAT), 4)
        self.assertEqual(acl.data_type_size(acl.ACL_FLOAT16), 2)
        self.assertEqual(acl.data_type_size(acl.ACL_BF16), 2)
        self.assertEqual(acl.data_type_size(acl.ACL_INT8), 1)
        self.assertEqual(acl.data_type_size(acl.ACL_INT64), 8)
        self.assertEqual(acl.data_type_size(acl.ACL_DOUBLE), 8)
        self.assertEqual(acl.data_type_size(acl.ACL_COMPLEX128), 16)

    def test_types_without_a_size_are_zero(self):
        self.assertEqual(acl.data_type_size(acl.ACL_STRING), 0)
        self.assertEqual(acl.data_type_size(acl.ACL_DT_UNDEFINED), 0)
        self.assertEqual(acl.data_type_size(999), 0)


if __name__ == "__main__":
    unittest.main()
