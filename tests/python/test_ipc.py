"""The `acl` module: IPC events, memory and notifies (make test-python).

The other process is a fresh interpreter (run_python) that imports the
module under test; it gets keys and handles as arguments in its code and
reports what it saw on stdout. Nothing here sleeps or asserts a duration.
"""
import os
import unittest

import acl
from test_acl import OK, RuntimeCase, run_python

RT_PARAM_INVALID = acl.ACL_ERROR_RT_PARAM_INVALID
IPC_ERROR = acl.ACL_ERROR_RT_IPC_ERROR
NO_PERMISSION = acl.ACL_ERROR_RT_NO_PERMISSION


def setUpModule():
    ret = acl.init()
    assert ret in (OK, acl.ACL_ERROR_REPEAT_INITIALIZE), ret
    assert acl.rt.set_device(0) == OK


def tearDownModule():
    acl.rt.reset_device(0)
    acl.finalize()


def host_backend():
    return acl.rtx.get_backend_name() == "host"


class IpcCase(RuntimeCase):
    def test_an_event_handle_opens_in_this_process_and_shares_records(self):
        exported = self.event(acl.rt.create_event_ex_with_flag, acl.ACL_EVENT_IPC)
        handle, ret = acl.rt.ipc_get_event_handle(exported)
        self.assertEqual(ret, OK)
        self.assertEqual(len(handle), acl.ACL_IPC_EVENT_HANDLE_SIZE)
        opened, ret = acl.rt.ipc_open_event_handle(handle)
        self.assertEqual(ret, OK)
        self.events.append(opened)
        stream = self.stream()
        self.assertEqual(acl.rt.record_event(opened, stream), OK)
        self.assertEqual(acl.rt.synchronize_event(exported), OK)
        status, ret = acl.rt.query_event_status(exported)
        self.assertEqual((status, ret), (acl.ACL_EVENT_RECORDED_STATUS_COMPLETE, OK))

    def test_event_handles_reject_plain_events_and_garbage(self):
        plain = self.event(acl.rt.create_event_ex_with_flag, acl.ACL_EVENT_SYNC)
        _, ret = acl.rt.ipc_get_event_handle(plain)
        self.assertEqual(ret, RT_PARAM_INVALID)
        event, ret = acl.rt.ipc_open_event_handle(b"\0" * acl.ACL_IPC_EVENT_HANDLE_SIZE)
        self.assertEqual((event, ret), (0, RT_PARAM_INVALID))
        with self.assertRaises(ValueError):
            acl.rt.ipc_open_event_handle(b"short")
        with self.assertRaises(TypeError):
            acl.rt.ipc_open_event_handle("not bytes")

    def test_a_record_in_another_process_completes_the_event_here(self):
        exported = self.event(acl.rt.create_event_ex_with_flag, acl.ACL_EVENT_IPC)
        handle, ret = acl.rt.ipc_get_event_handle(exported)
        self.assertEqual(ret, OK)
        done = run_python(
            "import acl\n"
            "acl.init(); acl.rt.set_device(0)\n"
            f"event, ret = acl.rt.ipc_open_event_handle({handle!r})\n"
            "stream, _ = acl.rt.create_stream()\n"
            "print(ret, acl.rt.record_event(event, stream), acl.rt.synchronize_stream(stream),\n"
            "      acl.rt.destroy_event(event), acl.rt.destroy_stream(stream))\n"
            "acl.rt.reset_device(0); acl.finalize()\n")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(done.stdout.split(), ["0"] * 5)
        self.assertEqual(acl.rt.synchronize_event(exported), OK)

    def test_memory_exported_here_is_written_by_another_process(self):
        size = 65536
        dev, ret = acl.rt.malloc(size, acl.ACL_MEM_MALLOC_HUGE_FIRST)
        self.assertEqual(ret, OK)
        try:
            self.assertEqual(acl.rt.memset(dev, size, 0x11, size), OK)
            key, ret = acl.rt.ipc_mem_get_export_key(dev, size, acl.ACL_RT_IPC_MEM_EXPORT_FLAG_DEFAULT)
            if not host_backend():
                self.assertEqual(ret, acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT)
                return
            self.assertEqual(ret, OK)
            self.assertEqual(len(key), 58)

            def importer(key):
                return run_python(
                    "import acl\n"
                    "acl.init(); acl.rt.set_device(0)\n"
                    f"ptr, ret = acl.rt.ipc_mem_import_by_key({key!r}, 0)\n"
                    "print(ret)\n"
                    "if ret == 0:\n"
                    "    print(acl.util.ptr_to_bytes(ptr, 4).hex(), acl.rt.memset(ptr, 16, 0x5a, 16),\n"
                    f"          acl.rt.ipc_mem_close({key!r}))\n"
                    "acl.rt.reset_device(0); acl.finalize()\n")

            self.assertEqual(acl.rt.ipc_mem_set_import_pid(key, [os.getpid()]), OK)  # not the importer's
            refused = importer(key)
            self.assertEqual(refused.returncode, 0, refused.stderr)
            self.assertEqual(refused.stdout.split(), [str(NO_PERMISSION)])
            self.assertEqual(acl.rt.ipc_mem_close(key), OK)
            key, ret = acl.rt.ipc_mem_get_export_key(dev, size, acl.ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION)
            self.assertEqual(ret, OK)
            self.assertEqual(acl.rt.ipc_mem_set_attr(key, acl.ACL_RT_IPC_MEM_ATTR_ACCESS_LINK,
                                                     acl.ACL_RT_IPC_MEM_ATTR_ACCESS_LINK_HCCS), OK)
            done = importer(key)
            self.assertEqual(done.returncode, 0, done.stderr)
            self.assertEqual(done.stdout.split(), ["0", "11111111", "0", "0"])
            self.assertEqual(acl.util.ptr_to_bytes(dev, 17), b"\x5a" * 16 + b"\x11")  # its writes, here
            self.assertEqual(acl.rt.ipc_mem_close(key), OK)
        finally:
            self.assertEqual(acl.rt.free(dev), OK)

    def test_memory_and_notify_calls_reject_bad_input(self):
        with self.assertRaises(TypeError):
            acl.rt.ipc_mem_set_import_pid("key", 5)
        self.assertEqual(acl.rt.ipc_mem_close("not a key"), RT_PARAM_INVALID)
        ptr, ret = acl.rt.ipc_mem_import_by_key("not a key", 0)
        self.assertEqual((ptr, ret), (0, RT_PARAM_INVALID))
        notify, ret = acl.rt.notify_import_by_key("not a key", 0)
        self.assertEqual((notify, ret), (0, RT_PARAM_INVALID))

    def test_a_notify_imported_here_releases_one_wait_per_record(self):
        notify, ret = acl.rt.create_notify(acl.ACL_NOTIFY_DEFAULT)
        self.assertEqual(ret, OK)
        try:
            key, ret = acl.rt.notify_get_export_key(notify, acl.ACL_RT_NOTIFY_EXPORT_FLAG_DEFAULT)
            self.assertEqual(ret, OK)
            _, ret = acl.rt.notify_import_by_key(key, 0)
            self.assertEqual(ret, NO_PERMISSION)
            self.assertEqual(acl.rt.notify_set_import_pid(notify, [os.getpid()]), OK)
            imported, ret = acl.rt.notify_import_by_key(key, 0)
            self.assertEqual(ret, OK)
            waiter, recorder = self.stream(), self.stream()
            for _ in range(3):
                self.assertEqual(acl.rt.wait_and_reset_notify(notify, waiter, 0), OK)
            for _ in range(3):
                self.assertEqual(acl.rt.record_notify(imported, recorder), OK)
            self.assertEqual(acl.rt.synchronize_stream(waiter), OK)
            self.assertEqual(acl.rt.wait_and_reset_notify(imported, waiter, 0), acl.ACL_ERROR_RT_FEATURE_NOT_SUPPORT)
            self.assertEqual(acl.rt.destroy_notify(imported), OK)
        finally:
            self.assertEqual(acl.rt.destroy_notify(notify), OK)


if __name__ == "__main__":
    unittest.main()
