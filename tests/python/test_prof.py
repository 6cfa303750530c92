"""The `acl` module: acl.prof, profiling sessions and markers (make test-python).

A session runs between start and stop; stop writes the Chrome trace
(aclrt_trace_<pid>_<n>.json) into the directory given to init, where the
markers, ranges and steps made during the session must show.
"""
import glob
import json
import os
import tempfile
import threading
import unittest

import acl
from test_acl import OK, RuntimeCase

INVALID_PARAM = acl.ACL_ERROR_INVALID_PARAM
NOT_RUN = acl.ACL_ERROR_PROF_NOT_RUN
ALREADY_RUN = acl.ACL_ERROR_PROF_ALREADY_RUN


def setUpModule():
    ret = acl.init()
    assert ret in (OK, acl.ACL_ERROR_REPEAT_INITIALIZE), ret
    assert acl.rt.set_device(0) == OK


def tearDownModule():
    acl.rt.reset_device(0)
    acl.finalize()


class TestProf(RuntimeCase):
    def setUp(self):
        super().setUp()
        self.dir = tempfile.TemporaryDirectory()
        self.assertEqual(acl.prof.init(self.dir.name), OK)
        self.config = acl.prof.create_config([0], acl.ACL_AICORE_NONE, None,
                                             acl.ACL_PROF_TASK_TIME | acl.ACL_PROF_MSPROFTX)
        self.assertNotEqual(self.config, 0)

    def tearDown(self):
        super().tearDown()
        acl.prof.destroy_config(self.config)
        acl.prof.finalize()
        self.dir.cleanup()

    def trace(self):
        files = glob.glob(os.path.join(self.dir.name, "aclrt_trace_*.json"))
        self.assertEqual(len(files), 1, files)
        with open(files[0]) as f:
            return f.read()

    def stamp(self, message):
        stamp = acl.prof.create_stamp()
        self.assertNotEqual(stamp, 0)
        self.addCleanup(acl.prof.destroy_stamp, stamp)
        self.assertEqual(acl.prof.set_stamp_trace_message(stamp, message), OK)
        return stamp

    def test_session_order(self):
        self.assertEqual(acl.prof.init(self.dir.name), acl.ACL_ERROR_REPEAT_INITIALIZE)
        self.assertEqual(acl.prof.stop(self.config), NOT_RUN)
        self.assertEqual(acl.prof.start(self.config), OK)
        self.assertEqual(acl.prof.start(self.config), ALREADY_RUN)
        self.assertEqual(acl.prof.stop(self.config), OK)
        json.loads(self.trace())

    def test_markers_and_ranges_land_in_the_trace(self):
        # Stamps are made within a session that collects msproftx.
        self.assertEqual(acl.prof.create_stamp(), 0)
        self.assertEqual(acl.prof.mark(0), NOT_RUN)
        self.assertEqual(acl.prof.start(self.config), OK)
        mark = self.stamp("py-mark")
        pushed = self.stamp("py-push")
        ranged = self.stamp("py-range")
        self.assertEqual(acl.prof.mark(mark), OK)
        self.assertEqual(acl.prof.push(pushed), OK)
        self.assertEqual(acl.prof.pop(), OK)
        self.assertEqual(acl.prof.pop(), INVALID_PARAM)
        range_id, ret = acl.prof.range_start(ranged)
        self.assertEqual(ret, OK)
        # A range started on one thread may be stopped on another.
        results = []
        worker = threading.Thread(target=lambda: results.append(acl.prof.range_stop(range_id)))
        worker.start()
        worker.join()
        self.assertEqual(results, [OK])
        self.assertEqual(acl.prof.range_stop(range_id), INVALID_PARAM)
        self.assertEqual(acl.prof.stop(self.config), OK)
        trace = self.trace()
        json.loads(trace)
        for message in ("py-mark", "py-push", "py-range"):
            self.assertIn(message, trace)

    def test_steps(self):
        stream = self.stream()
        info = acl.prof.create_step_info()
        self.assertNotEqual(info, 0)
        self.assertEqual(acl.prof.start(self.config), OK)
        self.assertEqual(acl.prof.get_step_timestamp(info, acl.ACL_STEP_START, stream), OK)
        self.assertEqual(acl.prof.get_step_timestamp(info, acl.ACL_STEP_START, stream), INVALID_PARAM)
        self.assertEqual(acl.prof.get_step_timestamp(info, acl.ACL_STEP_END, stream), OK)
        self.assertEqual(acl.prof.get_step_timestamp(info, acl.ACL_STEP_END, stream), INVALID_PARAM)
        self.assertEqual(acl.prof.get_step_timestamp(info, 7, stream), INVALID_PARAM)
        self.assertEqual(acl.rt.synchronize_stream(stream), OK)
        self.assertEqual(acl.prof.stop(self.config), OK)
        self.assertIsNone(acl.prof.destroy_step_info(info))
        self.assertEqual(acl.prof.get_step_timestamp(info, acl.ACL_STEP_START, stream), INVALID_PARAM)
        json.loads(self.trace())

    def test_bad_input(self):
        self.assertEqual(acl.prof.create_config([0, 0], acl.ACL_AICORE_NONE, None, acl.ACL_PROF_TASK_TIME), 0)
        self.assertEqual(acl.prof.create_config([9999], acl.ACL_AICORE_NONE, None, acl.ACL_PROF_TASK_TIME), 0)
        self.assertEqual(acl.prof.create_config([], acl.ACL_AICORE_NONE, None, acl.ACL_PROF_TASK_TIME), 0)
        self.assertEqual(acl.prof.create_config([0], acl.ACL_AICORE_NONE, 0x1000, acl.ACL_PROF_TASK_TIME), 0)
        with self.assertRaises(TypeError):
            acl.prof.create_config(0, acl.ACL_AICORE_NONE, None, 0)
        with self.assertRaises(OverflowError):
            acl.prof.create_config([-1], acl.ACL_AICORE_NONE, None, 0)
        self.assertEqual(acl.prof.destroy_config(0), INVALID_PARAM)
        self.assertEqual(acl.prof.start(0), INVALID_PARAM)
        self.assertEqual(acl.prof.get_step_timestamp(0, acl.ACL_STEP_START, 0), INVALID_PARAM)
        self.assertEqual(acl.prof.start(self.config), OK)
        self.assertEqual(acl.prof.mark(0), INVALID_PARAM)
        self.assertEqual(acl.prof.push(None), INVALID_PARAM)
        self.assertEqual(acl.prof.range_start(0), (0, INVALID_PARAM))
        stamp = acl.prof.create_stamp()
        self.assertNotEqual(stamp, 0)
        self.assertEqual(acl.prof.set_stamp_trace_message(stamp, None), INVALID_PARAM)
        self.assertEqual(acl.prof.set_stamp_trace_message(stamp, "x" * 200), INVALID_PARAM)
        self.assertEqual(acl.prof.set_stamp_trace_message(stamp, "abc", 2), OK)
        with self.assertRaises(ValueError):
            acl.prof.set_stamp_trace_message(stamp, "abc", 10)
        self.assertIsNone(acl.prof.destroy_stamp(stamp))
        self.assertEqual(acl.prof.mark(stamp), INVALID_PARAM)
        self.assertIsNone(acl.prof.destroy_stamp(0))
        self.assertEqual(acl.prof.stop(self.config), OK)
        self.assertEqual(acl.prof.set_config(acl.ACL_PROF_ARGS_MAX, "1"), INVALID_PARAM)
        self.assertEqual(acl.prof.set_config(acl.ACL_PROF_STORAGE_LIMIT, None), INVALID_PARAM)
        self.assertEqual(acl.prof.init(""), INVALID_PARAM)

    def test_constants(self):
        self.assertEqual(acl.ACL_PROF_TASK_TIME, 0x0002)
        self.assertEqual(acl.ACL_PROF_MSPROFTX, 0x0080)
        self.assertEqual(acl.ACL_PROF_API_STATS, 0x400000000)
        self.assertEqual(acl.ACL_AICORE_NONE, 0xFF)
        self.assertEqual((acl.ACL_STEP_START, acl.ACL_STEP_END), (0, 1))
        self.assertEqual(acl.ACL_PROF_PATH, 16)


if __name__ == "__main__":
    unittest.main()
