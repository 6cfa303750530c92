"""HCCL through ctypes, as Python users of CANN's libhccl.so call it (make test-install).

vllm-ascend's pyhccl and similar code load libhccl.so with ctypes and call
HcclGetRootInfo, HcclCommInitRootInfo, HcclAllReduce, HcclBroadcast,
HcclAllGather, HcclSend, HcclRecv, HcclCommDestroy and HcclGetErrorString,
with the runtime's aclrtMalloc, aclrtMemcpy and aclrtSynchronizeStream from
the same library. This does that in one process: a root info, four Python
threads, one rank each on four devices.

ACLRT_TEST_LIBHCCL names the library: make test-install passes
$(PREFIX)/lib64/libhccl.so of the installation it has just made (a link to
libascendcl.so). Without it the case is skipped. The ranks run in a child
interpreter with ACLRT_DEVICES=4 that never imports the `acl` module: that
one has its own copy of the runtime, and a process should hold one.
"""
import ctypes
import os
import struct
import subprocess
import sys
import threading
import unittest

RANKS = 4
N = 16
LIB = os.environ.get("ACLRT_TEST_LIBHCCL")

HCCL_DATA_TYPE_INT32, HCCL_DATA_TYPE_FP32 = 2, 4
HCCL_REDUCE_SUM = 0
ACL_MEM_MALLOC_HUGE_FIRST = 0
ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_HOST = 1, 2


class HcclRootInfo(ctypes.Structure):
    _fields_ = [("internal", ctypes.c_byte * 4108)]


def load(path):
    """The library with the signatures pyhccl declares (HcclResult and aclError are ints)."""
    lib = ctypes.CDLL(path)
    vp, u32, u64, i32, sz = ctypes.c_void_p, ctypes.c_uint32, ctypes.c_uint64, ctypes.c_int, ctypes.c_size_t
    signatures = {
        "aclInit": [ctypes.c_char_p], "aclFinalize": [],
        "aclrtSetDevice": [i32], "aclrtResetDevice": [i32],
        "aclrtCreateStream": [ctypes.POINTER(vp)], "aclrtDestroyStream": [vp], "aclrtSynchronizeStream": [vp],
        "aclrtMalloc": [ctypes.POINTER(vp), sz, i32], "aclrtFree": [vp],
        "aclrtMemcpy": [vp, sz, vp, sz, i32],
        "HcclGetRootInfo": [ctypes.POINTER(HcclRootInfo)],
        "HcclCommInitRootInfo": [u32, ctypes.POINTER(HcclRootInfo), u32, ctypes.POINTER(vp)],
        "HcclGetRankSize": [vp, ctypes.POINTER(u32)], "HcclGetRankId": [vp, ctypes.POINTER(u32)],
        "HcclAllReduce": [vp, vp, u64, i32, i32, vp, vp],
        "HcclBroadcast": [vp, u64, i32, u32, vp, vp],
        "HcclAllGather": [vp, vp, u64, i32, vp, vp],
        "HcclSend": [vp, u64, i32, u32, vp, vp], "HcclRecv": [vp, u64, i32, u32, vp, vp],
        "HcclCommDestroy": [vp],
    }
    for name, argtypes in signatures.items():
        fn = getattr(lib, name)
        fn.argtypes, fn.restype = argtypes, ctypes.c_int
    lib.HcclGetErrorString.argtypes, lib.HcclGetErrorString.restype = [ctypes.c_int], ctypes.c_char_p
    return lib


def child(path):
    """Runs in the child: every failure is an AssertionError, and the exit status says it."""
    lib = load(path)
    assert lib.aclInit(None) == 0
    assert lib.HcclGetErrorString(1) == b"parameter error"
    root = HcclRootInfo()
    assert lib.HcclGetRootInfo(ctypes.byref(root)) == 0
    bad = ctypes.c_void_p()
    assert lib.HcclCommInitRootInfo(RANKS, ctypes.byref(root), RANKS, ctypes.byref(bad)) == 1   # rank out of range
    results, errors = [None] * RANKS, []

    def device_buffer(values, fmt):
        data = struct.pack("<%d%s" % (len(values), fmt), *values)
        ptr = ctypes.c_void_p()
        assert lib.aclrtMalloc(ctypes.byref(ptr), len(data), ACL_MEM_MALLOC_HUGE_FIRST) == 0
        assert lib.aclrtMemcpy(ptr, len(data), data, len(data), ACL_MEMCPY_HOST_TO_DEVICE) == 0
        return ptr

    def host(ptr, fmt, count):
        out = ctypes.create_string_buffer(struct.calcsize("<%d%s" % (count, fmt)))
        assert lib.aclrtMemcpy(ctypes.addressof(out), len(out), ptr, len(out), ACL_MEMCPY_DEVICE_TO_HOST) == 0
        return list(struct.unpack("<%d%s" % (count, fmt), out.raw))

    def rank(r):
        try:
            assert lib.aclrtSetDevice(r) == 0
            stream, comm = ctypes.c_void_p(), ctypes.c_void_p()
            assert lib.aclrtCreateStream(ctypes.byref(stream)) == 0
            # Waits for the three other threads; ctypes releases the GIL around the call.
            assert lib.HcclCommInitRootInfo(RANKS, ctypes.byref(root), r, ctypes.byref(comm)) == 0
            size, me = ctypes.c_uint32(), ctypes.c_uint32()
            assert lib.HcclGetRankSize(comm, ctypes.byref(size)) == 0 and size.value == RANKS
            assert lib.HcclGetRankId(comm, ctypes.byref(me)) == 0 and me.value == r
            send = device_buffer([r + 0.25 * i for i in range(N)], "f")
            recv = device_buffer([0.0] * N, "f")
            bcast = device_buffer([r * 100 + i for i in range(N)], "i")
            gathered = device_buffer([0] * (N * RANKS), "i")
            p2p = device_buffer([0] * N, "i")
            assert lib.HcclAllReduce(send, recv, N, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, stream) == 0
            assert lib.HcclAllGather(bcast, gathered, N, HCCL_DATA_TYPE_INT32, comm, stream) == 0
            assert lib.HcclBroadcast(bcast, N, HCCL_DATA_TYPE_INT32, 1, comm, stream) == 0
            # Rank 0 sends to rank 3; the others have nothing to exchange.
            if r == 0:
                assert lib.HcclSend(bcast, N, HCCL_DATA_TYPE_INT32, 3, comm, stream) == 0
            elif r == 3:
                assert lib.HcclRecv(p2p, N, HCCL_DATA_TYPE_INT32, 0, comm, stream) == 0
            assert lib.aclrtSynchronizeStream(stream) == 0
            results[r] = (host(recv, "f", N), host(gathered, "i", N * RANKS), host(bcast, "i", N), host(p2p, "i", N))
            for ptr in (send, recv, bcast, gathered, p2p):
                assert lib.aclrtFree(ptr) == 0
            assert lib.HcclCommDestroy(comm) == 0
            assert lib.aclrtDestroyStream(stream) == 0
        except BaseException as e:   # noqa: B902 (reported by the main thread)
            errors.append((r, repr(e)))

    threads = [threading.Thread(target=rank, args=(r,)) for r in range(RANKS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for r in range(RANKS):
        reduced, gathered, bcast, p2p = results[r]
        assert reduced == [6 + 1.0 * i for i in range(N)], (r, reduced)
        assert gathered == [q * 100 + i for q in range(RANKS) for i in range(N)], (r, gathered)
        assert bcast == [100 + i for i in range(N)], (r, bcast)
        # Rank 0 sent after its broadcast: rank 1's values.
        assert p2p == ([100 + i for i in range(N)] if r == 3 else [0] * N), (r, p2p)
    for r in range(RANKS):
        assert lib.aclrtResetDevice(r) == 0
    assert lib.aclFinalize() == 0
    print("libhccl.so through ctypes: 4 threads, one root info: allreduce, allgather, broadcast, send/recv (ok)")


class TestCtypes(unittest.TestCase):
    @unittest.skipUnless(LIB, "ACLRT_TEST_LIBHCCL names no library (make test-install sets it)")
    def test_four_threads_use_libhccl_as_pyhccl_does(self):
        self.assertTrue(os.path.exists(LIB), LIB)
        env = dict(os.environ, ACLRT_DEVICES=str(RANKS), HCCL_EXEC_TIMEOUT="30", HCCL_CONNECT_TIMEOUT="30")
        result = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", LIB], capture_output=True,
                                text=True, env=env, timeout=120)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("(ok)", result.stdout)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        child(sys.argv[2])
    else:
        unittest.main()
