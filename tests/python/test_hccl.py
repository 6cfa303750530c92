"""The `acl` module: HCCL, acl.hccl (make test-python).

The cases of one device (constants, arguments, the codes of bad input, a
communicator of one rank) run here. Those of four ranks (FourRanks) run in
a child interpreter started with ACLRT_DEVICES=4, since this process's
runtime has one device; test_four_ranks_in_a_child starts it and passes
when every case there does. Streams are waited for with the runtime's
calls, never by sleeping; HCCL_EXEC_TIMEOUT and HCCL_CONNECT_TIMEOUT are
short in the child, so that a rank that never comes fails the case
instead of hanging it.
"""
import os
import struct
import subprocess
import sys
import threading
import unittest

import acl
from acl import hccl
from test_acl import OK, SUBPROCESS_TIMEOUT

RANKS = 4
HERE = os.path.dirname(os.path.abspath(__file__))
INT32, INT64, FP32 = hccl.HCCL_DATA_TYPE_INT32, hccl.HCCL_DATA_TYPE_INT64, hccl.HCCL_DATA_TYPE_FP32
SUM, MAX = hccl.HCCL_REDUCE_SUM, hccl.HCCL_REDUCE_MAX
E_PARA, E_PTR = hccl.HCCL_E_PARA, hccl.HCCL_E_PTR


def load_tests(loader, tests, pattern):
    """Discovery (make test-python) leaves FourRanks to the child, which names it."""
    suite = unittest.TestSuite()
    for case in (TestModule, TestOneDevice, TestInAChild):
        suite.addTests(loader.loadTestsFromTestCase(case))
    return suite


class Memory:
    """Device memory written and read through acl.rt.memcpy, freed by free_all."""

    def __init__(self):
        self.ptrs = []

    def alloc(self, size):
        ptr, ret = acl.rt.malloc(max(size, 1), acl.ACL_MEM_MALLOC_HUGE_FIRST)
        assert ret == OK and ptr != 0, ret
        self.ptrs.append(ptr)
        acl.rt.memset(ptr, max(size, 1), 0, max(size, 1))
        return ptr

    def put(self, fmt, values):
        data = struct.pack("<%d%s" % (len(values), fmt), *values)
        ptr = self.alloc(len(data))
        assert acl.rt.memcpy(ptr, len(data), acl.util.bytes_to_ptr(data), len(data),
                             acl.ACL_MEMCPY_HOST_TO_DEVICE) == OK
        return ptr

    @staticmethod
    def get(ptr, fmt, count):
        out = bytearray(struct.calcsize("<%d%s" % (count, fmt)))
        assert acl.rt.memcpy(acl.util.bytes_to_ptr(out), len(out), ptr, len(out),
                             acl.ACL_MEMCPY_DEVICE_TO_HOST) == OK
        return list(struct.unpack("<%d%s" % (count, fmt), out))

    def free_all(self):
        for ptr in self.ptrs:
            acl.rt.free(ptr)
        self.ptrs = []


class TestModule(unittest.TestCase):
    def test_hccl_is_a_submodule_of_acl_importable_by_name(self):
        import acl.hccl
        self.assertIs(sys.modules["acl.hccl"], acl.hccl)
        self.assertIs(hccl, acl.hccl)
        self.assertTrue(callable(hccl.all_reduce))
        self.assertIn("all_reduce(send_ptr, recv_ptr, count, dtype, op, comm, stream)", hccl.all_reduce.__doc__)

    def test_constants_carry_the_c_values(self):
        self.assertEqual((hccl.HCCL_SUCCESS, hccl.HCCL_E_PARA, hccl.HCCL_E_PTR, hccl.HCCL_E_TIMEOUT,
                          hccl.HCCL_E_RUNTIME, hccl.HCCL_E_REMOTE, hccl.HCCL_E_IN_STATUS), (0, 1, 2, 9, 15, 21, 1041))
        self.assertEqual((hccl.HCCL_DATA_TYPE_INT8, hccl.HCCL_DATA_TYPE_FP16, FP32, hccl.HCCL_DATA_TYPE_BFP16,
                          hccl.HCCL_DATA_TYPE_HIF8, hccl.HCCL_DATA_TYPE_FP8E8M0), (0, 3, 4, 11, 14, 17))
        self.assertEqual((SUM, hccl.HCCL_REDUCE_PROD, MAX, hccl.HCCL_REDUCE_MIN), (0, 1, 2, 3))
        self.assertEqual((hccl.HCCL_SEND, hccl.HCCL_RECV, hccl.HCCL_ROOT_INFO_BYTES), (0, 1, 4108))

    def test_error_strings_are_hccls(self):
        self.assertEqual(hccl.get_error_string(hccl.HCCL_SUCCESS), "success")
        self.assertEqual(hccl.get_error_string(E_PARA), "parameter error")
        self.assertEqual(hccl.get_error_string(E_PTR), "empty pointer")
        self.assertEqual(hccl.get_error_string(12345), "unknown error")
        self.assertRaises(TypeError, hccl.get_error_string, "1")
        self.assertRaises(OverflowError, hccl.get_error_string, 2 ** 40)


class TestOneDevice(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        ret = acl.init()
        assert ret in (OK, acl.ACL_ERROR_REPEAT_INITIALIZE), ret
        assert acl.rt.set_device(0) == OK
        cls.stream, ret = acl.rt.create_stream()
        assert ret == OK

    @classmethod
    def tearDownClass(cls):
        acl.rt.destroy_stream(cls.stream)
        acl.rt.reset_device(0)
        acl.finalize()

    def setUp(self):
        self.mem = Memory()

    def tearDown(self):
        self.mem.free_all()

    def test_a_root_info_is_fresh_bytes_of_hccls_size(self):
        first, ret = hccl.get_root_info()
        self.assertEqual(ret, OK)
        self.assertIsInstance(first, bytes)
        self.assertEqual(len(first), hccl.HCCL_ROOT_INFO_BYTES)
        second, _ = hccl.get_root_info()
        self.assertNotEqual(first, second)

    def test_a_root_info_of_another_size_is_a_value_error(self):
        root_info, _ = hccl.get_root_info()
        self.assertRaises(ValueError, hccl.comm_init_root_info, 1, root_info[:-1], 0)
        self.assertRaises(ValueError, hccl.comm_init_root_info, 1, root_info + b"\0", 0)
        self.assertRaises(TypeError, hccl.comm_init_root_info, 1, "text", 0)
        self.assertRaises(OverflowError, hccl.comm_init_root_info, -1, root_info, 0)

    def test_bad_root_infos_and_ranks_are_codes(self):
        root_info, _ = hccl.get_root_info()
        self.assertEqual(hccl.comm_init_root_info(1, bytes(hccl.HCCL_ROOT_INFO_BYTES), 0), (0, E_PARA))
        self.assertIn("HcclCommInitRootInfo", acl.get_recent_err_msg())
        self.assertEqual(hccl.comm_init_root_info(2, root_info, 2), (0, E_PARA))
        self.assertEqual(hccl.comm_init_root_info(0, root_info, 0), (0, E_PARA))

    def test_a_root_info_of_one_rank_makes_a_communicator_at_once(self):
        root_info, _ = hccl.get_root_info()
        comm, ret = hccl.comm_init_root_info(1, bytearray(root_info), 0)   # any bytes-like object
        self.assertEqual(ret, OK)
        self.assertNotEqual(comm, 0)
        self.assertEqual(hccl.get_rank_size(comm), (1, OK))
        self.assertEqual(hccl.comm_destroy(comm), OK)

    def test_comm_init_all_rejects_bad_device_lists(self):
        self.assertEqual(hccl.comm_init_all([]), ([], E_PARA))
        self.assertEqual(hccl.comm_init_all([1]), ([0], E_PARA))          # one device here
        self.assertIn("devices[0] = 1 is no device", acl.get_recent_err_msg())
        self.assertEqual(hccl.comm_init_all([0, 0]), ([0, 0], E_PARA))
        self.assertRaises(TypeError, hccl.comm_init_all, 0)
        self.assertRaises(TypeError, hccl.comm_init_all, [0.0])
        self.assertRaises(OverflowError, hccl.comm_init_all, [2 ** 31])

    def test_one_rank_runs_every_collective_as_a_copy(self):
        (comm,), ret = hccl.comm_init_all((0,))
        self.assertEqual(ret, OK)
        try:
            self.assertEqual(hccl.get_rank_id(comm), (0, OK))
            name, ret = hccl.get_comm_name(comm)
            self.assertEqual(ret, OK)
            self.assertTrue(name.startswith("hccl-"), name)
            self.assertEqual(hccl.get_comm_async_error(comm), (hccl.HCCL_SUCCESS, OK))
            send = self.mem.put("i", [1, 2, 3])
            outs = [self.mem.alloc(12) for _ in range(4)]
            s = self.stream
            self.assertEqual(hccl.all_reduce(send, outs[0], 3, INT32, SUM, comm, s), OK)
            self.assertEqual(hccl.all_gather(send, outs[1], 3, INT32, comm, s), OK)
            self.assertEqual(hccl.reduce(send, outs[2], 3, INT32, MAX, 0, comm, s), OK)
            self.assertEqual(hccl.alltoall(send, 3, INT32, outs[3], 3, INT32, comm, s), OK)
            self.assertEqual(hccl.barrier(comm, s), OK)
            self.assertEqual(acl.rt.synchronize_stream(s), OK)
            for out in outs:
                self.assertEqual(Memory.get(out, "i", 3), [1, 2, 3])
        finally:
            self.assertEqual(hccl.comm_destroy(comm), OK)
        self.assertEqual(hccl.comm_destroy(comm), E_PARA)                  # destroyed already
        self.assertEqual(hccl.get_rank_size(comm), (0, E_PARA))

    def test_handles_that_are_no_communicator_are_codes(self):
        buf = self.mem.alloc(16)
        for comm in (0x1234, 2 ** 64 - 1, -8):
            self.assertEqual(hccl.get_rank_size(comm), (0, E_PARA))
            self.assertEqual(hccl.get_rank_id(comm), (0, E_PARA))
            self.assertEqual(hccl.get_comm_name(comm), ("", E_PARA))
            self.assertEqual(hccl.get_comm_async_error(comm), (0, E_PARA))
            self.assertEqual(hccl.all_reduce(buf, buf, 4, INT32, SUM, comm, self.stream), E_PARA)
            self.assertEqual(hccl.comm_destroy(comm), E_PARA)
        hccl.all_reduce(buf, buf, 4, INT32, SUM, 0x1234, self.stream)
        self.assertIn("HcclAllReduce", acl.get_recent_err_msg())
        for comm in (0, None):
            self.assertEqual(hccl.get_rank_size(comm), (0, E_PTR))
            self.assertEqual(hccl.broadcast(buf, 4, INT32, 0, comm, self.stream), E_PTR)
        # The V forms reach the C call, which names the communicator, not a list.
        self.assertEqual(hccl.all_gather_v(buf, 1, buf, [1], [0], INT32, 0x1234, self.stream), E_PARA)
        self.assertIn("HcclAllGatherV", acl.get_recent_err_msg())

    def test_bad_arguments_are_codes_or_python_errors(self):
        (comm,), _ = hccl.comm_init_all([0])
        buf, s = self.mem.alloc(64), self.stream
        try:
            self.assertEqual(hccl.all_reduce(buf, buf, 4, 99, SUM, comm, s), E_PARA)            # no such type
            self.assertEqual(hccl.all_reduce(buf, buf, 4, INT32, 7, comm, s), E_PARA)           # no such op
            self.assertEqual(hccl.all_reduce(buf, buf, 4, INT32, SUM, comm, 0), E_PTR)          # no stream
            self.assertEqual(hccl.all_reduce(0, buf, 4, INT32, SUM, comm, s), E_PTR)            # no buffer
            self.assertEqual(hccl.all_reduce(None, None, 0, INT32, SUM, comm, s), OK)           # nothing to move
            self.assertEqual(hccl.broadcast(buf, 4, INT32, 1, comm, s), E_PARA)                 # root out of range
            self.assertEqual(hccl.send(buf, 4, INT32, 1, comm, s), E_PARA)                      # no rank 1
            self.assertEqual(hccl.alltoall(buf, 4, INT32, buf, 3, INT32, comm, s), E_PARA)      # counts differ
            self.assertEqual(hccl.batch_send_recv([(5, buf, 1, INT32, 0)], comm, s), E_PARA)    # neither
            self.assertEqual(hccl.group_end(), E_PARA)                                          # no group_start
            self.assertRaises(TypeError, hccl.all_reduce, buf, buf, 4.0, INT32, SUM, comm, s)
            self.assertRaises(OverflowError, hccl.all_reduce, buf, buf, -1, INT32, SUM, comm, s)
            self.assertRaises(TypeError, hccl.all_reduce, buf, buf, 4, INT32, SUM, comm)
            self.assertRaises(TypeError, hccl.batch_send_recv, [5], comm, s)
            self.assertRaises(TypeError, hccl.batch_send_recv, [(hccl.HCCL_SEND, buf)], comm, s)
            self.assertRaises(TypeError, hccl.batch_send_recv, 5, comm, s)
            self.assertRaises(ValueError, hccl.all_gather_v, buf, 1, buf, [1, 1], [0, 1], INT32, comm, s)
            self.assertRaises(TypeError, hccl.alltoallv, buf, [1], [0], INT32, buf, [1], None, INT32, comm, s)
            self.assertEqual(acl.rt.synchronize_stream(s), OK)
            self.assertEqual(hccl.get_comm_async_error(comm), (hccl.HCCL_SUCCESS, OK))    # nothing ran badly
        finally:
            self.assertEqual(hccl.comm_destroy(comm), OK)


class TestInAChild(unittest.TestCase):
    def test_four_ranks_in_a_child(self):
        env = dict(os.environ, ACLRT_DEVICES=str(RANKS), HCCL_EXEC_TIMEOUT="30", HCCL_CONNECT_TIMEOUT="30",
                   PYTHONPATH=os.pathsep.join([os.path.dirname(os.path.abspath(acl.__file__)), HERE]))
        result = subprocess.run([sys.executable, "-m", "unittest", "-v", "test_hccl.FourRanks"], cwd=HERE,
                                capture_output=True, text=True, env=env, timeout=SUBPROCESS_TIMEOUT)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertRegex(result.stderr, r"Ran \d+ tests")
        self.assertNotIn("skipped", result.stderr)


class FourRanks(unittest.TestCase):
    """Four ranks on four devices (ACLRT_DEVICES=4): HcclCommInitAll's, and four threads' of one root info."""

    @classmethod
    def setUpClass(cls):
        assert acl.init() == OK
        count, ret = acl.rt.get_device_count()
        assert (count, ret) == (RANKS, OK), "run with ACLRT_DEVICES=4 (test_four_ranks_in_a_child)"
        cls.comms, ret = hccl.comm_init_all(list(range(RANKS)))
        assert ret == OK, ret
        cls.streams = []
        for r in range(RANKS):
            assert acl.rt.set_device(r) == OK
            stream, ret = acl.rt.create_stream()
            assert ret == OK
            cls.streams.append(stream)

    @classmethod
    def tearDownClass(cls):
        for r in range(RANKS):
            acl.rt.set_device(r)
            acl.rt.destroy_stream(cls.streams[r])
            assert hccl.comm_destroy(cls.comms[r]) == OK
        for r in range(RANKS):
            acl.rt.reset_device(r)
        acl.finalize()

    def setUp(self):
        self.mem = Memory()

    def tearDown(self):
        self.mem.free_all()

    def each_rank(self, call):
        """call(r, comm, stream) on every rank, with rank r's device current (its stream's context)."""
        for r in range(RANKS):
            self.assertEqual(acl.rt.set_device(r), OK)
            self.assertEqual(call(r, self.comms[r], self.streams[r]), OK, "rank %d" % r)

    def sync(self):
        for r in range(RANKS):
            acl.rt.set_device(r)
            self.assertEqual(acl.rt.synchronize_stream(self.streams[r]), OK)

    def test_ranks_follow_the_device_list_and_share_one_name(self):
        names = set()
        for r, comm in enumerate(self.comms):
            self.assertEqual(hccl.get_rank_id(comm), (r, OK))
            self.assertEqual(hccl.get_rank_size(comm), (RANKS, OK))
            self.assertEqual(hccl.get_comm_async_error(comm), (hccl.HCCL_SUCCESS, OK))
            names.add(hccl.get_comm_name(comm))
        (name, ret), = names
        self.assertEqual(ret, OK)
        self.assertTrue(name.startswith("hccl-"), name)

    def test_all_reduce_sums_and_takes_the_maximum(self):
        n = 37
        send = [self.mem.put("i", [r * 100 + i for i in range(n)]) for r in range(RANKS)]
        fsend = [self.mem.put("f", [float(r) - 1.5 * i for i in range(n)]) for r in range(RANKS)]
        recv = [self.mem.alloc(4 * n) for _ in range(RANKS)]
        frecv = [self.mem.alloc(4 * n) for _ in range(RANKS)]
        self.each_rank(lambda r, c, s: hccl.all_reduce(send[r], recv[r], n, INT32, SUM, c, s))
        self.each_rank(lambda r, c, s: hccl.all_reduce(fsend[r], frecv[r], n, FP32, MAX, c, s))
        self.sync()
        for r in range(RANKS):
            self.assertEqual(Memory.get(recv[r], "i", n), [600 + 4 * i for i in range(n)])
            self.assertEqual(Memory.get(frecv[r], "f", n), [3.0 - 1.5 * i for i in range(n)])

    def test_broadcast_copies_the_roots_buffer(self):
        bufs = [self.mem.put("q", [r * 10 + i for i in range(5)]) for r in range(RANKS)]
        self.each_rank(lambda r, c, s: hccl.broadcast(bufs[r], 5, INT64, 2, c, s))
        self.sync()
        for r in range(RANKS):
            self.assertEqual(Memory.get(bufs[r], "q", 5), [20, 21, 22, 23, 24])

    def test_all_gather_concatenates_in_rank_order(self):
        send = [self.mem.put("i", [r, -r, 7]) for r in range(RANKS)]
        recv = [self.mem.alloc(4 * 3 * RANKS) for _ in range(RANKS)]
        self.each_rank(lambda r, c, s: hccl.all_gather(send[r], recv[r], 3, INT32, c, s))
        self.sync()
        for r in range(RANKS):
            self.assertEqual(Memory.get(recv[r], "i", 3 * RANKS), [v for q in range(RANKS) for v in (q, -q, 7)])

    def test_reduce_reduce_scatter_scatter_and_alltoall(self):
        send = [self.mem.put("i", [r + 10 * i for i in range(RANKS)]) for r in range(RANKS)]
        red, rs, sc, a2a = ([self.mem.alloc(4 * RANKS) for _ in range(RANKS)] for _ in range(4))
        self.each_rank(lambda r, c, s: hccl.reduce(send[r], red[r], RANKS, INT32, SUM, 1, c, s))
        self.each_rank(lambda r, c, s: hccl.reduce_scatter(send[r], rs[r], 1, INT32, MAX, c, s))
        self.each_rank(lambda r, c, s: hccl.scatter(send[r], sc[r], 1, INT32, 3, c, s))
        self.each_rank(lambda r, c, s: hccl.alltoall(send[r], 1, INT32, a2a[r], 1, INT32, c, s))
        self.sync()
        for r in range(RANKS):
            self.assertEqual(Memory.get(red[r], "i", RANKS), [6 + 40 * i for i in range(RANKS)] if r == 1 else
                             [0] * RANKS)
            self.assertEqual(Memory.get(rs[r], "i", 1), [3 + 10 * r])
            self.assertEqual(Memory.get(sc[r], "i", 1), [3 + 10 * r])
            self.assertEqual(Memory.get(a2a[r], "i", RANKS), [q + 10 * r for q in range(RANKS)])

    def test_the_v_forms_take_one_count_per_rank(self):
        counts, displs = [2, 0, 1, 3], [4, 0, 2, 6]
        send = [self.mem.put("i", [r * 10 + i for i in range(counts[r])]) for r in range(RANKS)]
        recv = [self.mem.alloc(4 * 9) for _ in range(RANKS)]
        self.each_rank(lambda r, c, s: hccl.all_gather_v(send[r], counts[r], recv[r], counts, displs, INT32, c, s))
        self.sync()
        expected = [0] * 9
        for q in range(RANKS):
            for i in range(counts[q]):
                expected[displs[q] + i] = q * 10 + i
        for r in range(RANKS):
            self.assertEqual(Memory.get(recv[r], "i", 9), expected)
        self.assertRaises(ValueError, hccl.all_gather_v, send[0], 2, recv[0], counts[:3], displs, INT32,
                          self.comms[0], self.streams[0])

    def test_sends_and_receives_pair_in_order(self):
        msgs = [self.mem.put("i", [100 * k + i for i in range(6)]) for k in range(3)]
        got = [self.mem.alloc(24) for _ in range(3)]
        acl.rt.set_device(2)
        for k in range(3):
            self.assertEqual(hccl.recv(got[k], 6, INT32, 0, self.comms[2], self.streams[2]), OK)
        acl.rt.set_device(0)
        for k in range(3):
            self.assertEqual(hccl.send(msgs[k], 6, INT32, 2, self.comms[0], self.streams[0]), OK)
        self.sync()
        for k in range(3):
            self.assertEqual(Memory.get(got[k], "i", 6), [100 * k + i for i in range(6)])

    def test_a_ring_exchange_as_a_batch_and_as_a_group(self):
        out = [self.mem.put("q", [1000 * r + i for i in range(5)]) for r in range(RANKS)]
        batch_in = [self.mem.alloc(40) for _ in range(RANKS)]
        group_in = [self.mem.alloc(40) for _ in range(RANKS)]
        for r in range(RANKS):
            acl.rt.set_device(r)
            c, s, right, left = self.comms[r], self.streams[r], (r + 1) % RANKS, (r - 1) % RANKS
            self.assertEqual(hccl.batch_send_recv([(hccl.HCCL_SEND, out[r], 5, INT64, right),
                                                   [hccl.HCCL_RECV, batch_in[r], 5, INT64, left]], c, s), OK)
            # Without the group every rank's send would wait for a receive queued behind it.
            self.assertEqual(hccl.group_start(), OK)
            self.assertEqual(hccl.send(out[r], 5, INT64, right, c, s), OK)
            self.assertEqual(hccl.recv(group_in[r], 5, INT64, left, c, s), OK)
            self.assertEqual(hccl.group_end(), OK)
        self.sync()
        for r in range(RANKS):
            left = (r - 1) % RANKS
            self.assertEqual(Memory.get(batch_in[r], "q", 5), [1000 * left + i for i in range(5)])
            self.assertEqual(Memory.get(group_in[r], "q", 5), [1000 * left + i for i in range(5)])

    def test_the_barrier_completes_on_every_rank(self):
        self.each_rank(lambda r, c, s: hccl.barrier(c, s))
        self.sync()

    def test_bad_input_on_four_ranks_is_a_code(self):
        buf = self.mem.alloc(64)
        acl.rt.set_device(0)
        c, s = self.comms[0], self.streams[0]
        self.assertEqual(hccl.broadcast(buf, 4, INT32, RANKS, c, s), E_PARA)
        self.assertIn("root 4 is out of range", acl.get_recent_err_msg())
        self.assertEqual(hccl.send(buf, 4, INT32, RANKS, c, s), E_PARA)
        self.assertEqual(hccl.all_reduce(buf, buf, 4, hccl.HCCL_DATA_TYPE_RESERVED, SUM, c, s), E_PARA)
        self.assertEqual(hccl.all_reduce(buf, buf, 4, INT32, hccl.HCCL_REDUCE_RESERVED, c, s), E_PARA)
        # A stream of another device is refused by the runtime (the current context is device 0's).
        self.assertEqual(hccl.barrier(c, self.streams[1]), hccl.HCCL_E_RUNTIME)
        self.assertEqual(acl.rt.synchronize_stream(s), OK)
        self.assertEqual(hccl.get_comm_async_error(c), (hccl.HCCL_SUCCESS, OK))

    def test_four_threads_join_one_root_info(self):
        """pyhccl's way in one process: a root info, a thread per rank, comm init waiting with the GIL released."""
        root_info, ret = hccl.get_root_info()
        self.assertEqual(ret, OK)
        n = 8
        results = [None] * RANKS

        def rank(r):
            acl.rt.set_device(r)
            stream, _ = acl.rt.create_stream()
            comm, ret = hccl.comm_init_root_info(RANKS, root_info, r)
            if ret != OK:
                results[r] = ("init", ret)
                return
            send = self.mem.put("f", [r + 0.5 * i for i in range(n)])
            recv = self.mem.alloc(4 * n)
            rets = [hccl.get_rank_id(comm), hccl.get_rank_size(comm),
                    hccl.all_reduce(send, recv, n, FP32, SUM, comm, stream),
                    acl.rt.synchronize_stream(stream), hccl.comm_destroy(comm),
                    acl.rt.destroy_stream(stream)]
            results[r] = (rets, Memory.get(recv, "f", n))

        threads = [threading.Thread(target=rank, args=(r,)) for r in range(RANKS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for r in range(RANKS):
            self.assertEqual(results[r], ([(r, OK), (RANKS, OK), OK, OK, OK, OK], [6 + 2.0 * i for i in range(n)]))


if __name__ == "__main__":
    unittest.main()
