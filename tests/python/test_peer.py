"""The `acl` module: peer access between devices (make test-python).

With one device (the default) every pair includes a device that does not
exist; the cases with two devices run in a fresh interpreter started with
ACLRT_DEVICES=2.
"""
import os
import textwrap
import unittest

import acl
from test_acl import OK, run_python

INVALID_PARAM = acl.ACL_ERROR_INVALID_PARAM
INVALID_DEVICE = acl.ACL_ERROR_RT_INVALID_DEVICEID


def setUpModule():
    ret = acl.init()
    assert ret in (OK, acl.ACL_ERROR_REPEAT_INITIALIZE), ret
    assert acl.rt.set_device(0) == OK


def tearDownModule():
    acl.rt.reset_device(0)
    acl.finalize()


def run_with_devices(count, code):
    saved = os.environ.get("ACLRT_DEVICES")
    os.environ["ACLRT_DEVICES"] = str(count)
    try:
        return run_python(textwrap.dedent(code))
    finally:
        if saved is None:
            del os.environ["ACLRT_DEVICES"]
        else:
            os.environ["ACLRT_DEVICES"] = saved


class TestPeerAccess(unittest.TestCase):
    def test_a_device_is_not_its_own_peer(self):
        self.assertEqual(acl.rt.device_can_access_peer(0, 0), (0, INVALID_PARAM))
        self.assertEqual(acl.rt.device_enable_peer_access(0, 0), INVALID_PARAM)

    def test_missing_devices_are_invalid_device_ids(self):
        count, _ = acl.rt.get_device_count()
        self.assertEqual(acl.rt.device_can_access_peer(0, count), (0, INVALID_DEVICE))
        self.assertEqual(acl.rt.device_enable_peer_access(count, 0), INVALID_DEVICE)
        self.assertEqual(acl.rt.device_disable_peer_access(count), INVALID_DEVICE)
        self.assertIn("aclrtDeviceDisablePeerAccess", acl.get_recent_err_msg())

    def test_two_devices_enable_and_disable_one_direction(self):
        result = run_with_devices(2, """
            import acl
            assert acl.init() == 0 and acl.rt.set_device(0) == 0
            print(acl.rt.get_device_count())
            print(acl.rt.device_can_access_peer(0, 1), acl.rt.device_can_access_peer(1, 0))
            print(acl.rt.device_peer_access_status(0, 1))
            print(acl.rt.device_enable_peer_access(1, 1))      # reserved flags
            print(acl.rt.device_enable_peer_access(1, 0))
            print(acl.rt.device_peer_access_status(0, 1), acl.rt.device_peer_access_status(1, 0))
            print(acl.rt.device_disable_peer_access(1))
            print(acl.rt.device_peer_access_status(0, 1))
            acl.rt.reset_device(0); acl.finalize()
            """)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout.split("\n")[:-1], [
            "(2, 0)",
            "(1, 0) (1, 0)",
            "(0, 0)",
            str(acl.ACL_ERROR_FEATURE_UNSUPPORTED),
            "0",
            "(1, 0) (0, 0)",
            "0",
            "(0, 0)",
        ])


if __name__ == "__main__":
    unittest.main()
