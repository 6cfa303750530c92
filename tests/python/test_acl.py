"""The `acl` module: pyACL's interface over aclrt (make test-python).

Each case names the behaviour it pins. Synchronization is by the runtime's
own calls and by events the test controls, never by sleeping; nothing here
asserts a duration.
"""
import array
import gc
import os
import subprocess
import sys
import threading
import time
import unittest

import acl

OK = acl.ACL_SUCCESS
COMPLETE = acl.ACL_EVENT_RECORDED_STATUS_COMPLETE      # 1: mind the polarity
NOT_READY = acl.ACL_EVENT_RECORDED_STATUS_NOT_READY    # 0
SUBPROCESS_TIMEOUT = 120


def setUpModule():
    ret = acl.init()
    assert ret in (OK, acl.ACL_ERROR_REPEAT_INITIALIZE), ret
    assert acl.rt.set_device(0) == OK


def tearDownModule():
    acl.rt.reset_device(0)
    acl.finalize()


class RuntimeCase(unittest.TestCase):
    """Streams and events made by a case are destroyed after it."""

    def setUp(self):
        self.streams, self.events = [], []
        self.context, ret = acl.rt.get_context()
        self.assertEqual(ret, OK)

    def tearDown(self):
        acl.rt.set_context(self.context)
        for event in self.events:
            acl.rt.destroy_event(event)
        for stream in self.streams:
            acl.rt.destroy_stream(stream)

    def stream(self):
        stream, ret = acl.rt.create_stream()
        self.assertEqual(ret, OK)
        self.assertNotEqual(stream, 0)
        self.streams.append(stream)
        return stream

    def event(self, create=acl.rt.create_event, *flag):
        event, ret = create(*flag)
        self.assertEqual(ret, OK)
        self.events.append(event)
        return event

    def gate(self):
        """A legacy SYNC event never recorded: a stream waiting on it waits for its next record."""
        return self.event(acl.rt.create_event_with_flag, acl.ACL_EVENT_SYNC)


class CaughtUnraisable:
    """Collects what reaches sys.unraisablehook (exceptions of runtime callbacks)."""

    def __enter__(self):
        self.seen = []
        self.saved = sys.unraisablehook
        sys.unraisablehook = lambda unraisable: self.seen.append((unraisable.exc_type, unraisable.object))
        return self

    def __exit__(self, *exc):
        sys.unraisablehook = self.saved


def run_python(code):
    """Run `code` in a fresh interpreter that imports the module under test."""
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.abspath(acl.__file__)))
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          timeout=SUBPROCESS_TIMEOUT)


class TestModule(unittest.TestCase):
    def test_submodules_are_modules_and_importable_by_name(self):
        import acl.rt
        from acl import rtx, util
        self.assertIs(sys.modules["acl.rt"], acl.rt)
        self.assertIs(util, acl.util)
        self.assertIs(rtx, acl.rtx)

    def test_constants_carry_the_c_values(self):
        self.assertEqual(acl.ACL_SUCCESS, 0)
        self.assertEqual(acl.ACL_ERROR_INVALID_PARAM, 100000)
        self.assertEqual(acl.ACL_ERROR_RT_INVALID_HANDLE, 107017)
        self.assertEqual(acl.ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, 507046)
        self.assertEqual(acl.ACL_EVENT_SYNC, 1)
        self.assertEqual(acl.ACL_EVENT_TIME_LINE, 8)
        self.assertEqual(acl.ACL_EVENT_RECORDED_STATUS_COMPLETE, 1)
        self.assertEqual(acl.ACL_EVENT_STATUS_COMPLETE, 0)
        self.assertEqual(acl.ACL_MEMCPY_DEVICE_TO_HOST, 2)
        self.assertEqual(acl.ACL_MEM_MALLOC_NORMAL_ONLY, 2)
        self.assertEqual(acl.ACL_CALLBACK_BLOCK, 1)

    def test_repeated_init_is_counted_and_reported(self):
        self.assertEqual(acl.init(), acl.ACL_ERROR_REPEAT_INITIALIZE)
        ref_count, ret = acl.finalize_reference()
        self.assertEqual(ret, OK)
        self.assertGreaterEqual(ref_count, 1)

    def test_recent_error_message_names_the_failing_call(self):
        acl.get_recent_err_msg()
        _, ret = acl.rt.query_event_status(0x1234)
        self.assertEqual(ret, acl.ACL_ERROR_RT_INVALID_HANDLE)
        self.assertIn("aclrtQueryEventStatus", acl.get_recent_err_msg())
        self.assertIsNone(acl.get_recent_err_msg())
        self.assertEqual(acl.rt.get_last_error(), acl.ACL_ERROR_RT_INVALID_HANDLE)
        self.assertEqual(acl.rt.peek_at_last_error(), OK)

    def test_backend_name(self):
        self.assertEqual(acl.rtx.get_backend_name(), "host")


class TestContextAndStream(RuntimeCase):
    def test_create_context_and_stream(self):
        count, ret = acl.rt.get_device_count()
        self.assertEqual((ret, count >= 1), (OK, True))
        context, ret = acl.rt.create_context(0)
        self.assertEqual(ret, OK)
        self.assertEqual(acl.rt.get_context(), (context, OK))
        self.assertEqual(acl.rt.get_device(), (0, OK))
        stream, ret = acl.rt.create_stream()
        self.assertEqual(ret, OK)
        self.assertEqual(acl.rt.stream_query(stream), (acl.ACL_STREAM_STATUS_COMPLETE, OK))
        self.assertEqual(acl.rt.synchronize_stream(stream), OK)
        self.assertEqual(acl.rt.destroy_stream(stream), OK)
        self.assertEqual(acl.rt.set_context(self.context), OK)
        self.assertEqual(acl.rt.destroy_context(context), OK)

    def test_stream_getters_return_outputs_then_ret(self):
        stream, ret = acl.rt.create_stream_with_config(3, 0)
        self.assertEqual(ret, OK)
        self.streams.append(stream)
        self.assertEqual(acl.rt.stream_get_priority(stream), (3, OK))
        self.assertEqual(acl.rt.stream_get_flags(stream), (0, OK))
        self.assertEqual(acl.rt.stream_get_id(stream)[1], OK)
        least, greatest, ret = acl.rt.device_get_stream_priority_range()
        self.assertEqual((least, greatest, ret), (7, 0, OK))
        self.assertEqual(acl.rt.set_stream_attribute(stream, acl.ACL_STREAM_ATTR_USER_CUSTOM_TAG, 42), OK)
        self.assertEqual(acl.rt.get_stream_attribute(stream, acl.ACL_STREAM_ATTR_USER_CUSTOM_TAG), (42, OK))
        default, ret = acl.rt.ctx_get_current_default_stream()
        self.assertEqual(ret, OK)
        self.assertNotEqual(default, 0)

    def test_stream_config_handle(self):
        handle = acl.rt.create_stream_config_handle()
        self.assertNotEqual(handle, 0)
        self.assertEqual(acl.rt.set_stream_config_opt(handle, acl.ACL_RT_STREAM_PRIORITY, 5), OK)
        stream, ret = acl.rt.create_stream_v2(handle)
        self.assertEqual(ret, OK)
        self.streams.append(stream)
        self.assertEqual(acl.rt.stream_get_priority(stream), (5, OK))
        self.assertEqual(acl.rt.destroy_stream_config_handle(handle), OK)


class TestEvents(RuntimeCase):
    def test_record_synchronize_elapsed_time(self):
        stream, start, end = self.stream(), self.event(), self.event()
        self.assertEqual(acl.rt.record_event(start, stream), OK)
        self.assertEqual(acl.rt.launch_host_func(stream, lambda n: sum(range(n)), 20000), OK)
        self.assertEqual(acl.rt.record_event(end, stream), OK)
        self.assertEqual(acl.rt.synchronize_stream(stream), OK)
        self.assertEqual(acl.rt.query_event_status(end), (COMPLETE, OK))
        ms, ret = acl.rt.event_elapsed_time(start, end)
        self.assertEqual(ret, OK)
        self.assertIsInstance(ms, float)
        self.assertGreaterEqual(ms, 0.0)
        timestamp, ret = acl.rt.event_get_timestamp(end)
        self.assertEqual(ret, OK)
        self.assertIsInstance(timestamp, int)

    def test_two_streams_record_and_wait_run_in_order(self):
        first, second, third = self.stream(), self.stream(), self.stream()
        gate, done_first, done_second = self.gate(), self.event(), self.event()
        order = []
        self.assertEqual(acl.rt.stream_wait_event(first, gate), OK)
        self.assertEqual(acl.rt.launch_host_func(first, order.append, "first"), OK)
        self.assertEqual(acl.rt.record_event(done_first, first), OK)
        self.assertEqual(acl.rt.stream_wait_event(second, done_first), OK)
        self.assertEqual(acl.rt.launch_host_func(second, order.append, "second"), OK)
        self.assertEqual(acl.rt.record_event(done_second, second), OK)
        # Nothing can run before the gate opens: the second stream waits on the first.
        self.assertEqual(acl.rt.query_event_status(done_second), (NOT_READY, OK))
        self.assertEqual(acl.rt.record_event(gate, third), OK)
        self.assertEqual(acl.rt.synchronize_stream(second), OK)
        self.assertEqual(order, ["first", "second"])
        self.assertEqual(acl.rt.query_event_wait_status(done_first), (acl.ACL_EVENT_WAIT_STATUS_COMPLETE, OK))

    def test_query_before_record_follows_the_event_flavour(self):
        self.assertEqual(acl.rt.query_event_status(self.event()), (NOT_READY, OK))
        reusable = self.event(acl.rt.create_event_ex_with_flag, acl.ACL_EVENT_SYNC)
        self.assertEqual(acl.rt.query_event_status(reusable), (COMPLETE, OK))
        self.assertEqual(acl.rt.query_event(self.event()), (acl.ACL_EVENT_STATUS_COMPLETE, OK))

    def test_synchronize_with_timeout_returns_the_timeout_code(self):
        stream, gate, other = self.stream(), self.gate(), self.stream()
        self.assertEqual(acl.rt.stream_wait_event(stream, gate), OK)
        self.assertEqual(acl.rt.synchronize_stream_with_timeout(stream, 20), acl.ACL_ERROR_RT_STREAM_SYNC_TIMEOUT)
        marker = self.event()
        self.assertEqual(acl.rt.record_event(marker, stream), OK)
        self.assertEqual(acl.rt.synchronize_event_with_timeout(marker, 20), acl.ACL_ERROR_RT_EVENT_SYNC_TIMEOUT)
        self.assertEqual(acl.rt.record_event(gate, other), OK)
        self.assertEqual(acl.rt.synchronize_event(marker), OK)
        self.assertEqual(acl.rt.reset_event(gate, other), OK)
        self.assertEqual(acl.rt.synchronize_device(), OK)

    def test_event_ids_and_counts(self):
        before, ret = acl.rt.get_event_avail_num()
        self.assertEqual(ret, OK)
        event = self.event()
        self.assertEqual(acl.rt.get_event_avail_num(), (before - 1, OK))
        self.assertEqual(acl.rt.get_event_id(event)[1], OK)
        self.assertEqual(acl.rt.set_op_wait_timeout(0), OK)


class TestMemory(RuntimeCase):
    def test_memcpy_round_trip_through_device_memory(self):
        data = bytes(range(256)) * 16
        size = len(data)
        dev, ret = acl.rt.malloc(size, acl.ACL_MEM_MALLOC_HUGE_FIRST)
        self.assertEqual(ret, OK)
        host, ret = acl.rt.malloc_host(size)
        self.assertEqual(ret, OK)
        try:
            src = acl.util.bytes_to_ptr(data)
            self.assertEqual(acl.rt.memcpy(dev, size, src, size, acl.ACL_MEMCPY_HOST_TO_DEVICE), OK)
            self.assertEqual(acl.rt.memcpy(host, size, dev, size, acl.ACL_MEMCPY_DEVICE_TO_HOST), OK)
            self.assertEqual(acl.util.ptr_to_bytes(host, size), data)
            out = bytearray(size)  # a writable buffer can be the destination
            self.assertEqual(acl.rt.memcpy(acl.util.bytes_to_ptr(out), size, dev, size,
                                           acl.ACL_MEMCPY_DEVICE_TO_HOST), OK)
            self.assertEqual(bytes(out), data)
        finally:
            self.assertEqual(acl.rt.free(dev), OK)
            self.assertEqual(acl.rt.free_host(host), OK)

    def test_async_copy_and_memset_in_stream_order(self):
        stream, size = self.stream(), 4096
        dev, _ = acl.rt.malloc(size, acl.ACL_MEM_MALLOC_NORMAL_ONLY)
        host, _ = acl.rt.malloc_host(size)
        try:
            self.assertEqual(acl.rt.memset(dev, size, 0x11, size), OK)
            self.assertEqual(acl.rt.memset_async(dev, size, 0x5A, size // 2, stream), OK)
            self.assertEqual(acl.rt.memcpy_async(host, size, dev, size, acl.ACL_MEMCPY_DEVICE_TO_HOST, stream), OK)
            self.assertEqual(acl.rt.synchronize_stream(stream), OK)
            self.assertEqual(acl.util.ptr_to_bytes(host, size), b"\x5a" * (size // 2) + b"\x11" * (size // 2))
        finally:
            acl.rt.free(dev)
            acl.rt.free_host(host)

    def test_bad_sizes_and_pointers_return_codes(self):
        self.assertEqual(acl.rt.malloc(0, 0), (0, acl.ACL_ERROR_INVALID_PARAM))
        dev, _ = acl.rt.malloc(64, 0)
        self.assertEqual(acl.rt.memcpy(dev, 32, dev, 64, acl.ACL_MEMCPY_DEVICE_TO_DEVICE),
                         acl.ACL_ERROR_RT_PARAM_INVALID)
        self.assertEqual(acl.rt.free(dev), OK)
        self.assertEqual(acl.rt.free(dev), acl.ACL_ERROR_RT_PARAM_INVALID)
        self.assertEqual(acl.rt.free(0), acl.ACL_ERROR_INVALID_PARAM)

    def test_util_pointers_of_buffers(self):
        numbers = array.array("i", [1, 2, 3, 4])
        ptr = acl.util.numpy_to_ptr(numbers)
        self.assertEqual(ptr, numbers.buffer_info()[0])
        self.assertEqual(acl.util.ptr_to_bytes(ptr, 16), numbers.tobytes())
        self.assertEqual(acl.util.ptr_to_bytes(0, 0), b"")
        with self.assertRaises(ValueError):
            acl.util.ptr_to_bytes(0, 1)
        with self.assertRaises(TypeError):
            acl.util.bytes_to_ptr(12)

    def test_ptr_to_numpy_views_the_memory(self):
        try:
            import numpy
        except ImportError:
            self.skipTest("numpy is not installed (optional)")
        numbers = array.array("i", range(6))
        view = acl.util.ptr_to_numpy(numbers.buffer_info()[0], (2, 3), 5)  # 5: NPY_INT32
        self.assertEqual(view.tolist(), [[0, 1, 2], [3, 4, 5]])
        numbers[0] = 7
        self.assertEqual(int(view[0, 0]), 7)
        self.assertIsInstance(view, numpy.ndarray)


class TestHostFunctions(RuntimeCase):
    def test_host_functions_run_in_stream_order_on_runtime_threads(self):
        stream, seen = self.stream(), []
        for i in range(100):
            self.assertEqual(acl.rt.launch_host_func(stream, seen.append, i), OK)
        threads = []
        acl.rt.launch_host_func(stream, lambda out: out.append(threading.get_ident()), threads)
        self.assertEqual(acl.rt.synchronize_stream(stream), OK)
        self.assertEqual(seen, list(range(100)))
        self.assertNotEqual(threads, [threading.get_ident()])

    def test_a_raising_host_function_is_reported_and_does_not_wedge_the_stream(self):
        stream, after = self.stream(), []

        def boom(arg):
            raise ValueError(arg)

        with CaughtUnraisable() as caught:
            self.assertEqual(acl.rt.launch_host_func(stream, boom, "boom"), OK)
            self.assertEqual(acl.rt.launch_host_func(stream, after.append, "after"), OK)
            self.assertEqual(acl.rt.synchronize_stream(stream), OK)
        self.assertEqual(caught.seen, [(ValueError, boom)])
        self.assertEqual(after, ["after"])

    def test_the_exception_is_printed_with_its_traceback(self):
        result = run_python(
            "import acl\n"
            "acl.init(); acl.rt.set_device(0)\n"
            "stream, _ = acl.rt.create_stream()\n"
            "def boom(arg): raise ValueError('boom from a host function')\n"
            "acl.rt.launch_host_func(stream, boom, None)\n"
            "acl.rt.launch_host_func(stream, print, 'after')\n"
            "print(acl.rt.synchronize_stream(stream))\n")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout.split(), ["after", "0"])
        self.assertIn("Exception ignored in", result.stderr)
        self.assertIn("Traceback", result.stderr)
        self.assertIn("ValueError: boom from a host function", result.stderr)

    def test_queued_host_functions_run_before_the_interpreter_exits(self):
        result = run_python(
            "import acl\n"
            "acl.init(); acl.rt.set_device(0)\n"
            "stream, _ = acl.rt.create_stream()\n"
            "for i in range(3): acl.rt.launch_host_func(stream, print, i)\n")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout.split(), ["0", "1", "2"])

    def test_callable_and_args_are_released_once_run(self):
        stream = self.stream()

        def fn(arg):
            pass

        def boom(arg):
            raise RuntimeError("released too")

        args = ["payload"]
        base = sys.getrefcount(fn), sys.getrefcount(boom), sys.getrefcount(args)
        with CaughtUnraisable() as caught:
            for _ in range(500):
                acl.rt.launch_host_func(stream, fn, args)
                acl.rt.launch_host_func(stream, boom, args)
            self.assertEqual(acl.rt.synchronize_stream(stream), OK)
            caught.seen.clear()
        self.assertEqual((sys.getrefcount(fn), sys.getrefcount(boom), sys.getrefcount(args)), base)

    def test_a_failed_launch_keeps_no_reference(self):
        def fn(arg):
            pass

        args = object()
        base = sys.getrefcount(fn), sys.getrefcount(args)
        self.assertEqual(acl.rt.launch_host_func(0xAC20FFFF00000001, fn, args), acl.ACL_ERROR_RT_INVALID_HANDLE)
        self.assertEqual((sys.getrefcount(fn), sys.getrefcount(args)), base)

    def test_a_host_function_may_call_the_runtime(self):
        stream, event, results = self.stream(), self.event(), []
        self.assertEqual(acl.rt.record_event(event, stream), OK)
        acl.rt.launch_host_func(stream, lambda e: results.append(acl.rt.query_event_status(e)), event)
        self.assertEqual(acl.rt.synchronize_stream(stream), OK)
        self.assertEqual(results, [(COMPLETE, OK)])


class TestGil(RuntimeCase):
    def test_synchronize_releases_the_gil_for_other_python_threads(self):
        """The only way the stream can complete is a record made by another
        Python thread after the main thread has entered synchronize. With the
        switch interval raised, the main thread lets that thread run only if
        synchronize releases the GIL; otherwise it times out."""
        stream, other, gate = self.stream(), self.stream(), self.gate()
        self.assertEqual(acl.rt.stream_wait_event(stream, gate), OK)
        self.assertEqual(acl.rt.stream_query(stream), (acl.ACL_STREAM_STATUS_NOT_READY, OK))
        go, progress = [], []

        def recorder():
            acl.rt.set_context(self.context)  # a new thread has no current context
            while not go:
                time.sleep(0)  # gives up the GIL while the main thread prepares
            progress.append("recording")
            progress.append(acl.rt.record_event(gate, other))

        thread = threading.Thread(target=recorder)
        thread.start()
        interval = sys.getswitchinterval()
        sys.setswitchinterval(1000.0)  # no forced switch: only a blocking call lets the recorder run
        try:
            go.append(True)
            ret = acl.rt.synchronize_stream_with_timeout(stream, 30000)
        finally:
            sys.setswitchinterval(interval)
        thread.join()
        self.assertEqual(ret, OK)
        self.assertEqual(progress, ["recording", OK])


class TestHostKernels(RuntimeCase):
    def test_every_block_runs(self):
        stream, out = self.stream(), [None] * 8

        def kernel(block, blocks, data):
            data[block] = (block, blocks)

        self.assertEqual(acl.rtx.launch_host_kernel(stream, 8, kernel, out), OK)
        self.assertEqual(acl.rt.synchronize_stream(stream), OK)
        self.assertEqual(out, [(b, 8) for b in range(8)])

    def test_a_kernel_returning_a_code_fails_the_task_and_the_stream_goes_on(self):
        stream, after = self.stream(), []
        self.assertEqual(acl.rtx.launch_host_kernel(stream, 4, lambda b, n, a: 0 if b else 123456, None), OK)
        self.assertEqual(acl.rt.launch_host_func(stream, after.append, "after"), OK)
        self.assertEqual(acl.rt.synchronize_stream(stream), 123456)
        self.assertEqual(after, ["after"])

    def test_a_raising_kernel_is_reported_and_fails_with_an_ai_core_exception(self):
        stream = self.stream()

        def kernel(block, blocks, arg):
            raise KeyError(block)

        with CaughtUnraisable() as caught:
            self.assertEqual(acl.rtx.launch_host_kernel(stream, 1, kernel, None), OK)
            self.assertEqual(acl.rt.synchronize_stream(stream), acl.ACL_ERROR_RT_AICORE_EXCEPTION)
        self.assertEqual(caught.seen, [(KeyError, kernel)])

    def test_kernel_references_are_released_even_when_it_fails(self):
        stream, args = self.stream(), ["payload"]

        def kernel(block, blocks, arg):
            return 7 if block == 2 else None

        base = sys.getrefcount(kernel), sys.getrefcount(args)
        for _ in range(50):
            acl.rtx.launch_host_kernel(stream, 4, kernel, args)
        acl.rt.synchronize_stream(stream)
        self.assertEqual((sys.getrefcount(kernel), sys.getrefcount(args)), base)
        self.assertEqual(acl.rtx.launch_host_kernel(stream, 0, kernel, args), acl.ACL_ERROR_RT_PARAM_INVALID)
        self.assertEqual((sys.getrefcount(kernel), sys.getrefcount(args)), base)


class TestBadInput(RuntimeCase):
    def test_wrong_types_and_counts_raise_type_error(self):
        calls = [
            lambda: acl.rt.create_stream(1),
            lambda: acl.rt.record_event(1),
            lambda: acl.rt.record_event("event", 0),
            lambda: acl.rt.query_event_status(1.5),
            lambda: acl.rt.query_event_status(),
            lambda: acl.rt.malloc("4096", 0),
            lambda: acl.rt.memcpy(1, 2, 3),
            lambda: acl.rt.synchronize_stream_with_timeout(0, "1"),
            lambda: acl.rt.launch_host_func(0, 42, None),
            lambda: acl.rtx.launch_host_kernel(0, 1, None, None),
            lambda: acl.init(3),
            lambda: acl.util.start_thread(None, []),
        ]
        for call in calls:
            with self.assertRaises(TypeError):
                call()

    def test_out_of_range_values_raise_overflow_error(self):
        with self.assertRaises(OverflowError):
            acl.rt.malloc(-1, 0)
        with self.assertRaises(OverflowError):
            acl.rt.create_event_with_flag(1 << 32)

    def test_invalid_handles_return_the_runtime_code(self):
        stream, event = self.stream(), self.event()
        acl.rt.destroy_event(event)
        self.events.remove(event)
        garbage = 0xDEADBEEF
        self.assertEqual(acl.rt.query_event_status(event), (NOT_READY, acl.ACL_ERROR_RT_INVALID_HANDLE))
        self.assertEqual(acl.rt.record_event(event, stream), acl.ACL_ERROR_RT_INVALID_HANDLE)
        self.assertEqual(acl.rt.record_event(self.event(), garbage), acl.ACL_ERROR_RT_INVALID_HANDLE)
        self.assertEqual(acl.rt.synchronize_stream(garbage), acl.ACL_ERROR_RT_INVALID_HANDLE)
        self.assertEqual(acl.rt.destroy_stream(0), acl.ACL_ERROR_INVALID_PARAM)
        self.assertEqual(acl.rt.destroy_event(None), acl.ACL_ERROR_INVALID_PARAM)
        self.assertEqual(acl.rt.create_event_with_flag(0), (0, acl.ACL_ERROR_RT_PARAM_INVALID))
        self.assertEqual(acl.rt.event_elapsed_time(garbage, garbage)[1], acl.ACL_ERROR_RT_INVALID_HANDLE)


class TestThreads(unittest.TestCase):
    def test_start_thread_runs_fn_with_args_and_stop_thread_waits(self):
        seen = []
        thread_id, ret = acl.util.start_thread(lambda args: seen.append((args, threading.get_ident())), [1, 2])
        self.assertEqual(ret, OK)
        self.assertEqual(acl.util.stop_thread(thread_id), OK)
        self.assertEqual(seen, [([1, 2], thread_id)])
        self.assertEqual(acl.util.stop_thread(thread_id), acl.ACL_ERROR_INVALID_PARAM)


class TestNoLeaks(RuntimeCase):
    """100,000 create/record/query/destroy rounds: Python objects, reference
    counts of the shared small ints and the runtime's event slots all come
    back. A leak of one object or one reference per call would show as
    100,000; the tolerance is 1,000."""

    ROUNDS = 100_000
    TOLERANCE = 1_000

    def round_trip(self, stream, rounds):
        for _ in range(rounds):
            event, ret = acl.rt.create_event_ex_with_flag(acl.ACL_EVENT_SYNC)
            acl.rt.record_event(event, stream)
            acl.rt.query_event_status(event)
            acl.rt.destroy_event(event)

    def test_no_leak_over_100k_calls(self):
        stream = self.stream()
        self.round_trip(stream, 1000)  # warm caches and free lists
        gc.collect()
        slots_before, _ = acl.rt.get_event_avail_num()
        blocks_before = sys.getallocatedblocks()
        refs_before = sys.getrefcount(0), sys.getrefcount(1), sys.getrefcount(None)
        self.round_trip(stream, self.ROUNDS)
        gc.collect()
        blocks_after = sys.getallocatedblocks()
        refs_after = sys.getrefcount(0), sys.getrefcount(1), sys.getrefcount(None)
        self.assertLess(abs(blocks_after - blocks_before), self.TOLERANCE)
        for before, after in zip(refs_before, refs_after):
            self.assertLess(abs(after - before), self.TOLERANCE)
        self.assertEqual(acl.rt.get_event_avail_num(), (slots_before, OK))
        self.assertEqual(acl.rt.synchronize_stream(stream), OK)


if __name__ == "__main__":
    unittest.main()
