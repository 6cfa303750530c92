"""The `acl` module: notifies, counting notifies, value write/wait and the
aclrtx HCOM group tasks (make test-python).

Ordering is proven by what host functions log, with gates (legacy SYNC
events never recorded until the test opens them) making the waits pending
before their records; never by sleeping, and nothing asserts a duration.
"""
import gc
import struct
import sys
import threading
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


class SyncCase(RuntimeCase):
    """Notifies, counting notifies, device words and HCOM descriptors made by a case are freed after it."""

    def setUp(self):
        super().setUp()
        self.notifies, self.cnt_notifies, self.words, self.tasks = [], [], [], []

    def tearDown(self):
        for notify in self.notifies:
            acl.rt.destroy_notify(notify)  # releases waits a failed case left pending
        for cnt in self.cnt_notifies:
            acl.rt.cnt_notify_destroy(cnt)
        for task in self.tasks:
            acl.rtx.destroy_hcom_task(task)
        super().tearDown()
        for word in self.words:
            acl.rt.free(word)

    def notify(self):
        notify, ret = acl.rt.create_notify(acl.ACL_NOTIFY_DEFAULT)
        self.assertEqual(ret, OK)
        self.assertNotEqual(notify, 0)
        self.notifies.append(notify)
        return notify

    def cnt_notify(self):
        cnt, ret = acl.rt.cnt_notify_create(0)
        self.assertEqual(ret, OK)
        self.cnt_notifies.append(cnt)
        return cnt

    def word(self, value=0):
        """A 64-bit word of device memory (acl.rt.malloc), set to value."""
        word, ret = acl.rt.malloc(64, acl.ACL_MEM_MALLOC_HUGE_FIRST)
        self.assertEqual(ret, OK)
        self.words.append(word)
        self.store(word, value)
        return word

    def store(self, word, value):
        data = struct.pack("<Q", value)
        self.assertEqual(acl.rt.memcpy(word, 8, acl.util.bytes_to_ptr(data), 8, acl.ACL_MEMCPY_HOST_TO_DEVICE), OK)

    @staticmethod
    def load(word):
        return struct.unpack("<Q", acl.util.ptr_to_bytes(word, 8))[0]

    def hcom_task(self, kind, group, stream):
        create = acl.rtx.create_hcom_record_task if kind == "record" else acl.rtx.create_hcom_wait_task
        task, ret = create(group)
        self.assertEqual(ret, OK)
        self.tasks.append(task)
        stream_id, ret = acl.rt.stream_get_id(stream)
        self.assertEqual(ret, OK)
        self.assertEqual(acl.rtx.hcom_task_set_stream_id(task, stream_id), OK)
        data, ret = acl.rtx.hcom_task_serialize(task)
        self.assertEqual(ret, OK)
        return data


class TestNotify(SyncCase):
    def test_producer_consumer_pipeline_across_two_streams(self):
        """The consumer's waits are all enqueued before any record (the
        producer is gated); each record releases exactly one wait, so item i
        is consumed after it was produced, and every item exactly once."""
        producer, consumer, gate, other = self.stream(), self.stream(), self.gate(), self.stream()
        notify, n = self.notify(), 50
        produced, consumed = [], []
        self.assertEqual(acl.rt.stream_wait_event(producer, gate), OK)
        for i in range(n):
            self.assertEqual(acl.rt.launch_host_func(producer, produced.append, i), OK)
            self.assertEqual(acl.rt.record_notify(notify, producer), OK)
        for i in range(n):
            self.assertEqual(acl.rt.wait_and_reset_notify(notify, consumer, 0), OK)
            self.assertEqual(acl.rt.launch_host_func(
                consumer, lambda i: consumed.append((i, i in produced)), i), OK)
        self.assertEqual(acl.rt.stream_query(consumer), (acl.ACL_STREAM_STATUS_NOT_READY, OK))
        self.assertEqual(consumed, [])
        self.assertEqual(acl.rt.record_event(gate, other), OK)
        self.assertEqual(acl.rt.synchronize_stream(consumer), OK)
        self.assertEqual(consumed, [(i, True) for i in range(n)])
        self.assertEqual(produced, list(range(n)))

    def test_one_record_releases_one_wait_and_batch_reset_drops_unconsumed_records(self):
        stream, notify, ran = self.stream(), self.notify(), []
        notify_id, ret = acl.rt.get_notify_id(notify)
        self.assertEqual(ret, OK)
        self.assertIsInstance(notify_id, int)
        self.assertEqual(acl.rt.record_notify(notify, stream), OK)  # idle stream: recorded at the call
        self.assertEqual(acl.rt.record_notify(notify, stream), OK)
        self.assertEqual(acl.rt.notify_batch_reset([notify]), OK)   # both records dropped
        self.assertEqual(acl.rt.record_notify(notify, stream), OK)
        waiter = self.stream()
        self.assertEqual(acl.rt.wait_and_reset_notify(notify, waiter, 0), OK)  # consumes the one record
        self.assertEqual(acl.rt.launch_host_func(waiter, ran.append, "first"), OK)
        self.assertEqual(acl.rt.wait_and_reset_notify(notify, waiter, 0), OK)  # needs another record
        self.assertEqual(acl.rt.launch_host_func(waiter, ran.append, "second"), OK)
        self.assertEqual(acl.rt.launch_host_func(stream, len, ()), OK)
        self.assertEqual(acl.rt.synchronize_stream(stream), OK)
        self.assertEqual(acl.rt.stream_query(waiter), (acl.ACL_STREAM_STATUS_NOT_READY, OK))
        self.assertEqual(acl.rt.record_notify(notify, stream), OK)
        self.assertEqual(acl.rt.synchronize_stream(waiter), OK)
        self.assertEqual(ran, ["first", "second"])

    def test_destroy_releases_a_pending_wait_without_error(self):
        stream, ran = self.stream(), []
        notify = self.notify()
        self.assertEqual(acl.rt.wait_and_reset_notify(notify, stream, 0), OK)  # never recorded
        self.assertEqual(acl.rt.launch_host_func(stream, ran.append, "after"), OK)
        self.assertEqual(acl.rt.destroy_notify(notify), OK)
        self.notifies.remove(notify)
        self.assertEqual(acl.rt.synchronize_stream(stream), OK)  # the wait was released, without error
        self.assertEqual(ran, ["after"])


class TestCntNotify(SyncCase):
    def test_counted_records_release_a_clearing_wait_on_another_stream(self):
        producer, consumer, gate, other = self.stream(), self.stream(), self.gate(), self.stream()
        cnt, events = self.cnt_notify(), []
        self.assertEqual(acl.rt.cnt_notify_get_id(cnt)[1], OK)
        self.assertEqual(acl.rt.stream_wait_event(producer, gate), OK)
        for i in range(3):
            self.assertEqual(acl.rt.launch_host_func(producer, events.append, f"add {i}"), OK)
            self.assertEqual(acl.rt.cnt_notify_record(cnt, producer, acl.ACL_RT_CNT_NOTIFY_RECORD_ADD_MODE, 1), OK)
        self.assertEqual(acl.rt.cnt_notify_wait_with_timeout(
            cnt, consumer, acl.ACL_RT_CNT_NOTIFY_WAIT_BIGGER_OR_EQUAL_MODE, 3, 0, is_clear=1), OK)
        self.assertEqual(acl.rt.launch_host_func(consumer, events.append, "consumer"), OK)
        self.assertEqual(acl.rt.record_event(gate, other), OK)
        self.assertEqual(acl.rt.synchronize_stream(consumer), OK)
        self.assertEqual(events, ["add 0", "add 1", "add 2", "consumer"])
        # The passing wait cleared the counter: EQUAL 0 passes at once on an idle stream.
        self.assertEqual(acl.rt.synchronize_stream(producer), OK)
        self.assertEqual(acl.rt.cnt_notify_wait_with_timeout(
            cnt, consumer, acl.ACL_RT_CNT_NOTIFY_WAIT_EQUAL_MODE, 0, 0), OK)
        self.assertEqual(acl.rt.cnt_notify_record(cnt, producer, acl.ACL_RT_CNT_NOTIFY_RECORD_SET_VALUE_MODE, 9), OK)
        self.assertEqual(acl.rt.cnt_notify_reset(cnt, producer), OK)
        self.assertEqual(acl.rt.cnt_notify_wait_with_timeout(
            cnt, consumer, acl.ACL_RT_CNT_NOTIFY_WAIT_LESS_MODE, 1, 0), OK)
        self.assertEqual(acl.rt.synchronize_stream(consumer), OK)


class TestValue(SyncCase):
    def test_value_write_on_one_stream_releases_value_wait_on_another(self):
        writer, reader, gate, other = self.stream(), self.stream(), self.gate(), self.stream()
        word, events = self.word(), []
        self.assertEqual(acl.rt.stream_wait_event(writer, gate), OK)
        self.assertEqual(acl.rt.launch_host_func(writer, events.append, "data ready"), OK)
        self.assertEqual(acl.rt.value_write(word, 7, 0, writer), OK)
        self.assertEqual(acl.rt.value_wait(word, 7, acl.ACL_STREAM_WAIT_VALUE_EQ, reader), OK)
        self.assertEqual(acl.rt.launch_host_func(reader, events.append, "consumed"), OK)
        self.assertEqual(acl.rt.stream_query(reader), (acl.ACL_STREAM_STATUS_NOT_READY, OK))
        self.assertEqual(acl.rt.record_event(gate, other), OK)
        self.assertEqual(acl.rt.synchronize_stream(reader), OK)
        self.assertEqual(events, ["data ready", "consumed"])
        self.assertEqual(self.load(word), 7)

    def test_value_wait_is_released_by_a_plain_write_from_python(self):
        reader, word, events = self.stream(), self.word(), []
        self.assertEqual(acl.rt.value_wait(word, 1 << 40, acl.ACL_STREAM_WAIT_VALUE_GEQ, reader), OK)
        self.assertEqual(acl.rt.launch_host_func(reader, events.append, "released"), OK)
        self.assertEqual(acl.rt.stream_query(reader), (acl.ACL_STREAM_STATUS_NOT_READY, OK))
        self.store(word, (1 << 40) + 5)  # a copy, not a value_write: the waiting stream polls for it
        self.assertEqual(acl.rt.synchronize_stream(reader), OK)
        self.assertEqual(events, ["released"])

    def test_full_64_bit_values(self):
        stream, word = self.stream(), self.word()
        top = (1 << 64) - 1
        self.assertEqual(acl.rt.value_write(word, top, 0, stream), OK)
        self.assertEqual(acl.rt.synchronize_stream(stream), OK)
        self.assertEqual(self.load(word), top)
        self.assertEqual(acl.rt.value_wait(word, top, acl.ACL_STREAM_WAIT_VALUE_EQ, stream), OK)
        self.assertEqual(acl.rt.synchronize_stream(stream), OK)


class TestHcom(SyncCase):
    def test_a_record_task_releases_the_wait_task_of_its_group_on_another_stream(self):
        waiter, recorder, events = self.stream(), self.stream(), []
        wait = self.hcom_task("wait", "pipeline", waiter)
        record = self.hcom_task("record", "pipeline", recorder)
        self.assertEqual(len(record), 14 + len("pipeline"))
        self.assertEqual(record[:4], b"AXHT")
        self.assertEqual(acl.rtx.launch_hcom_task_list(wait), OK)
        self.assertEqual(acl.rt.launch_host_func(waiter, events.append, "after the wait"), OK)
        self.assertEqual(acl.rt.stream_query(waiter), (acl.ACL_STREAM_STATUS_NOT_READY, OK))
        self.assertEqual(acl.rt.launch_host_func(recorder, events.append, "before the record"), OK)
        self.assertEqual(acl.rtx.launch_hcom_task_list(bytearray(record)), OK)  # any bytes-like object
        self.assertEqual(acl.rt.synchronize_stream(waiter), OK)
        self.assertEqual(events, ["before the record", "after the wait"])
        # One list with both, run again: the k-th wait is released by the k-th record.
        task_list = b"".join([wait, record])
        for _ in range(3):
            self.assertEqual(acl.rtx.launch_hcom_task_list(task_list), OK)
        self.assertEqual(acl.rt.synchronize_stream(waiter), OK)

    def test_default_group_and_descriptors_the_module_did_not_make(self):
        task, ret = acl.rtx.create_hcom_wait_task()
        self.assertEqual(ret, OK)
        self.tasks.append(task)
        data, ret = acl.rtx.hcom_task_serialize(task)
        self.assertEqual((data[14:], ret), (b"group", OK))  # None: the default group
        for bogus in (0xDEADBEEF, task + 8):
            self.assertEqual(acl.rtx.hcom_task_set_stream_id(bogus, 0), INVALID_HANDLE)
            self.assertEqual(acl.rtx.hcom_task_serialize(bogus), (b"", INVALID_HANDLE))
            self.assertEqual(acl.rtx.destroy_hcom_task(bogus), INVALID_HANDLE)
        self.assertEqual(acl.rtx.hcom_task_set_stream_id(None, 0), INVALID_PARAM)
        self.assertEqual(acl.rtx.hcom_task_serialize(0), (b"", INVALID_PARAM))
        self.assertEqual(acl.rtx.hcom_task_set_stream_id(task, -1), RT_PARAM_INVALID)
        self.assertEqual(acl.rtx.destroy_hcom_task(task), OK)
        self.tasks.remove(task)
        self.assertEqual(acl.rtx.destroy_hcom_task(task), INVALID_HANDLE)  # destroyed: no double free
        name_max = acl.ACLRTX_HCOM_GROUP_NAME_MAX
        self.assertEqual(acl.rtx.create_hcom_record_task("g" * (name_max + 1)), (0, RT_PARAM_INVALID))
        long_task, ret = acl.rtx.create_hcom_record_task(group_name="g" * name_max)
        self.assertEqual(ret, OK)
        self.tasks.append(long_task)


class TestBadInput(SyncCase):
    def test_wrong_types_raise_type_error_and_out_of_range_values_overflow_error(self):
        stream, notify, word = self.stream(), self.notify(), self.word()
        type_errors = [
            lambda: acl.rt.create_notify(),
            lambda: acl.rt.create_notify("0"),
            lambda: acl.rt.record_notify(notify),
            lambda: acl.rt.wait_and_reset_notify(notify, stream, 1.5),
            lambda: acl.rt.notify_batch_reset(notify),
            lambda: acl.rt.notify_batch_reset(["notify"]),
            lambda: acl.rt.cnt_notify_record(0, stream, 1),
            lambda: acl.rt.cnt_notify_wait_with_timeout(0, stream, 1, 1),
            lambda: acl.rt.cnt_notify_wait_with_timeout(0, stream, 1, 1, 0, is_clear="yes"),
            lambda: acl.rt.value_write(word, "7", 0, stream),
            lambda: acl.rt.value_wait(word, 7, 0),
            lambda: acl.rtx.launch_hcom_task_list("AXHT"),
            lambda: acl.rtx.launch_hcom_task_list(None),
            lambda: acl.rtx.create_hcom_wait_task(7),
            lambda: acl.rtx.hcom_task_set_stream_id(0, "1"),
        ]
        for call in type_errors:
            with self.assertRaises(TypeError):
                call()
        for call in (lambda: acl.rt.value_write(word, -1, 0, stream),
                     lambda: acl.rt.value_write(word, 1 << 64, 0, stream),
                     lambda: acl.rt.wait_and_reset_notify(notify, stream, 1 << 32),
                     lambda: acl.rt.create_notify(-1)):
            with self.assertRaises(OverflowError):
                call()
        with self.assertRaises(ValueError):
            acl.rtx.create_hcom_record_task("a\0b")

    def test_runtime_errors_come_back_in_ret(self):
        stream, word = self.stream(), self.word()
        self.assertEqual(acl.rt.create_notify(2), (0, RT_PARAM_INVALID))
        notify = self.notify()
        self.assertEqual(acl.rt.destroy_notify(notify), OK)
        self.notifies.remove(notify)
        for call in (lambda: acl.rt.destroy_notify(notify), lambda: acl.rt.record_notify(notify, stream),
                     lambda: acl.rt.wait_and_reset_notify(notify, stream, 0),
                     lambda: acl.rt.notify_batch_reset([notify]), lambda: acl.rt.cnt_notify_destroy(0xDEADBEEF)):
            self.assertEqual(call(), INVALID_HANDLE)
        self.assertEqual(acl.rt.get_notify_id(notify), (0, INVALID_HANDLE))
        self.assertEqual(acl.rt.record_notify(None, stream), INVALID_PARAM)
        self.assertEqual(acl.rt.notify_batch_reset([]), RT_PARAM_INVALID)
        self.assertEqual(acl.rt.notify_batch_reset([None]), INVALID_PARAM)
        cnt = self.cnt_notify()
        self.assertEqual(acl.rt.cnt_notify_record(cnt, stream, 3, 1), RT_PARAM_INVALID)
        self.assertEqual(acl.rt.cnt_notify_wait_with_timeout(cnt, stream, 5, 1, 0), RT_PARAM_INVALID)
        self.assertEqual(acl.rt.cnt_notify_create(1), (0, RT_PARAM_INVALID))
        heap = bytearray(64)
        self.assertEqual(acl.rt.value_write(acl.util.bytes_to_ptr(heap), 1, 0, stream), RT_PARAM_INVALID)
        self.assertEqual(acl.rt.value_write(word + 4, 1, 0, stream), RT_PARAM_INVALID)   # misaligned
        self.assertEqual(acl.rt.value_write(word, 1, 1, stream), RT_PARAM_INVALID)       # flag must be 0
        self.assertEqual(acl.rt.value_wait(word, 1, 9, stream), RT_PARAM_INVALID)
        self.assertEqual(acl.rt.value_write(None, 1, 0, stream), INVALID_PARAM)
        self.assertEqual(acl.rt.value_write(word, 1, 0, 0xDEADBEEF), INVALID_HANDLE)
        self.assertEqual(acl.rtx.launch_hcom_task_list(b""), RT_PARAM_INVALID)
        self.assertEqual(acl.rtx.launch_hcom_task_list(b"AXHT garbage"), RT_PARAM_INVALID)
        self.assertEqual(acl.rt.synchronize_stream(stream), OK)


class TestNoLeaks(SyncCase):
    """100,000 rounds of notify create/record/wait/id/batch reset/destroy,
    a counting notify record and wait, a value write and wait, and an HCOM
    record and wait launched as one list: Python objects, the shared small
    ints and the runtime's notify quota come back."""

    ROUNDS = 100_000
    TOLERANCE = 1_000

    def test_no_leak_over_100k_calls(self):
        stream, other, word, cnt = self.stream(), self.stream(), self.word(), self.cnt_notify()
        hcom = b"".join([self.hcom_task("wait", "leak", other), self.hcom_task("record", "leak", stream)])
        rt, rtx = acl.rt, acl.rtx
        add, cnt_geq = acl.ACL_RT_CNT_NOTIFY_RECORD_ADD_MODE, acl.ACL_RT_CNT_NOTIFY_WAIT_BIGGER_OR_EQUAL_MODE
        geq = acl.ACL_STREAM_WAIT_VALUE_GEQ  # the writer may be ahead: the word only grows

        def rounds(n):
            for i in range(n):
                notify, _ = rt.create_notify(0)
                rt.record_notify(notify, stream)
                rt.wait_and_reset_notify(notify, other, 0)
                rt.get_notify_id(notify)
                rt.notify_batch_reset([notify])
                rt.destroy_notify(notify)
                rt.cnt_notify_record(cnt, stream, add, 1)
                rt.cnt_notify_wait_with_timeout(cnt, other, cnt_geq, 1, 0)  # no clear: records run ahead
                rt.value_write(word, i, 0, stream)
                rt.value_wait(word, i, geq, other)
                rtx.launch_hcom_task_list(hcom)
                if i % 1000 == 999:
                    rt.synchronize_stream(other)

        rounds(1000)
        self.assertEqual(acl.rt.synchronize_stream(other), OK)
        gc.collect()
        blocks_before = sys.getallocatedblocks()
        refs_before = sys.getrefcount(0), sys.getrefcount(1), sys.getrefcount(None), sys.getrefcount(hcom)
        rounds(self.ROUNDS)
        self.assertEqual(acl.rt.synchronize_stream(other), OK)
        self.assertEqual(acl.rt.synchronize_stream(stream), OK)
        gc.collect()
        self.assertLess(abs(sys.getallocatedblocks() - blocks_before), self.TOLERANCE)
        refs_after = sys.getrefcount(0), sys.getrefcount(1), sys.getrefcount(None), sys.getrefcount(hcom)
        self.assertEqual(refs_after[3], refs_before[3])
        for before, after in zip(refs_before[:3], refs_after[:3]):
            self.assertLess(abs(after - before), self.TOLERANCE)
        # The quota: every notify made came back (a leak would exhaust the 8192 of the device long before).
        notify, ret = acl.rt.create_notify(0)
        self.assertEqual(ret, OK)
        self.assertEqual(acl.rt.destroy_notify(notify), OK)


if __name__ == "__main__":
    unittest.main()
