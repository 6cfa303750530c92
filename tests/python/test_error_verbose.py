"""The `acl` module: a device's hardware error details (make test-python)."""
import unittest

import acl
from test_acl import OK, RuntimeCase


def setUpModule():
    ret = acl.init()
    assert ret in (OK, acl.ACL_ERROR_REPEAT_INITIALIZE), ret
    assert acl.rt.set_device(0) == OK


def tearDownModule():
    acl.rt.reset_device(0)
    acl.finalize()


NO_ERROR = {"tryRepair": 0, "hasDetail": 0, "errorType": 0, "detail": None}


class TestErrorVerbose(RuntimeCase):
    def test_a_healthy_device_reports_no_error(self):
        self.assertEqual(acl.rt.get_error_verbose(0), (NO_ERROR, OK))
        self.assertEqual(acl.ACL_RT_NO_ERROR, 0)

    def test_a_failed_task_is_not_a_hardware_error(self):
        stream = self.stream()
        self.assertEqual(acl.rtx.launch_host_kernel(stream, 1, lambda block, blocks, args: 507015, None), OK)
        self.assertEqual(acl.rt.synchronize_stream(stream), 507015)
        self.assertEqual(acl.rt.get_error_verbose(0), (NO_ERROR, OK))

    def test_missing_device_is_an_invalid_device_id(self):
        count, _ = acl.rt.get_device_count()
        self.assertEqual(acl.rt.get_error_verbose(count), (None, acl.ACL_ERROR_RT_INVALID_DEVICEID))
        self.assertIn("aclrtGetErrorVerbose", acl.get_recent_err_msg())
        with self.assertRaises(TypeError):
            acl.rt.get_error_verbose("0")


if __name__ == "__main__":
    unittest.main()
