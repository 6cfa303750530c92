"""The `acl` module: kernel binaries, functions, args handles and launches
(make test-python).

The kernels are tests/kernels/test_kernels.c, built by the Makefile into
build/kernels/libtest_kernels.so (ACLRT_TEST_KERNEL_DIR names the directory;
by default the build directory of this tree). Arguments are packed with
`struct` in the layout the kernels read (C structs of their parameters).
"""
import os
import struct
import unittest

import acl
from test_acl import OK, RuntimeCase

INVALID_PARAM = acl.ACL_ERROR_INVALID_PARAM
RT_PARAM_INVALID = acl.ACL_ERROR_RT_PARAM_INVALID
INVALID_HANDLE = acl.ACL_ERROR_RT_INVALID_HANDLE

KERNEL_DIR = os.environ.get("ACLRT_TEST_KERNEL_DIR") or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "build", "kernels")
KERNELS = os.path.abspath(os.path.join(KERNEL_DIR, "libtest_kernels.so"))


def setUpModule():
    ret = acl.init()
    assert ret in (OK, acl.ACL_ERROR_REPEAT_INITIALIZE), ret
    assert acl.rt.set_device(0) == OK


def tearDownModule():
    acl.rt.reset_device(0)
    acl.finalize()


class KernelCase(RuntimeCase):
    """Binaries and device memory a case made are unloaded and freed after it."""

    def setUp(self):
        super().setUp()
        self.bins, self.device = [], []

    def tearDown(self):
        super().tearDown()
        for ptr in self.device:
            acl.rt.free(ptr)
        for bin_handle in self.bins:
            acl.rt.binary_unload(bin_handle)

    def load(self):
        bin_handle, ret = acl.rt.binary_load_from_file(KERNELS, [])
        self.assertEqual(ret, OK)
        self.bins.append(bin_handle)
        return bin_handle

    def function(self, bin_handle, name):
        func, ret = acl.rt.binary_get_function(bin_handle, name)
        self.assertEqual(ret, OK)
        return func

    def malloc(self, size):
        ptr, ret = acl.rt.malloc(size, 0)
        self.assertEqual(ret, OK)
        self.device.append(ptr)
        return ptr

    def read_int32(self, ptr, n):
        out = bytearray(4 * n)
        self.assertEqual(acl.rt.memcpy(acl.util.bytes_to_ptr(out), len(out), ptr, len(out),
                                       acl.ACL_MEMCPY_DEVICE_TO_HOST), OK)
        return list(struct.unpack("<%di" % n, out))


class TestKernels(KernelCase):
    def test_an_args_handle_launch_runs_every_block_with_the_appended_parameters(self):
        fill = self.function(self.load(), "fill")
        out = self.malloc(16)
        args, ret = acl.rt.kernel_args_init(fill)
        self.assertEqual(ret, OK)
        out_bytes, value = struct.pack("<Q", out), struct.pack("<i", 30)
        _, ret = acl.rt.kernel_args_append(args, acl.util.bytes_to_ptr(out_bytes), 8)
        self.assertEqual(ret, OK)
        p_value, ret = acl.rt.kernel_args_append(args, acl.util.bytes_to_ptr(value), 4)
        self.assertEqual(ret, OK)
        self.assertEqual(acl.rt.kernel_args_finalize(args), OK)
        stream = self.stream()
        self.assertEqual(acl.rt.launch_kernel_with_config(fill, 4, stream, [], args, 0), OK)
        self.assertEqual(acl.rt.synchronize_stream(stream), OK)
        self.assertEqual(self.read_int32(out, 4), [30, 31, 32, 33])
        # An update, finalized, changes the next launch.
        value = struct.pack("<i", -4)
        self.assertEqual(acl.rt.kernel_args_para_update(args, p_value, acl.util.bytes_to_ptr(value), 4), OK)
        self.assertEqual(acl.rt.launch_kernel_with_config(fill, 4, stream, [], args, 0), RT_PARAM_INVALID)
        self.assertEqual(acl.rt.kernel_args_finalize(args), OK)
        cfg = [{"id": acl.ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT, "value": 600}]
        self.assertEqual(acl.rt.launch_kernel_with_config(fill, 2, stream, cfg, args, 0), OK)
        self.assertEqual(acl.rt.synchronize_stream(stream), OK)
        self.assertEqual(self.read_int32(out, 4), [-4, -3, 32, 33])

    def test_launch_kernel_reads_device_memory_arguments(self):
        fill = self.function(self.load(), "fill")
        out, dev_args = self.malloc(16), self.malloc(16)
        packed = struct.pack("<Qi4x", out, 7)
        self.assertEqual(acl.rt.memcpy(dev_args, 16, acl.util.bytes_to_ptr(packed), 16,
                                       acl.ACL_MEMCPY_HOST_TO_DEVICE), OK)
        stream = self.stream()
        self.assertEqual(acl.rt.launch_kernel(fill, 3, dev_args, 16, stream), OK)
        self.assertEqual(acl.rt.synchronize_stream(stream), OK)
        self.assertEqual(self.read_int32(out, 3), [7, 8, 9])
        self.assertEqual(acl.rt.launch_kernel(fill, 3, acl.util.bytes_to_ptr(packed), 16, stream), RT_PARAM_INVALID)

    def test_a_placeholder_buffer_is_filled_through_its_address(self):
        sum_ = self.function(self.load(), "sum")
        result = self.malloc(8)
        args, _ = acl.rt.kernel_args_init(sum_)
        out_bytes, n = struct.pack("<Q", result), struct.pack("<I", 3)
        acl.rt.kernel_args_append(args, acl.util.bytes_to_ptr(out_bytes), 8)
        p_data, ret = acl.rt.kernel_args_append_place_holder(args)
        self.assertEqual(ret, OK)
        acl.rt.kernel_args_append(args, acl.util.bytes_to_ptr(n), 4)
        buf, ret = acl.rt.kernel_args_get_place_holder_buffer(args, p_data, 12)
        self.assertEqual(ret, OK)
        data = struct.pack("<3i", 100, 20, 3)
        self.assertEqual(acl.rt.memcpy(buf, 12, acl.util.bytes_to_ptr(data), 12, acl.ACL_MEMCPY_HOST_TO_HOST), OK)
        self.assertEqual(acl.rt.kernel_args_finalize(args), OK)
        stream = self.stream()
        self.assertEqual(acl.rt.launch_kernel_with_config(sum_, 1, stream, None, args), OK)
        self.assertEqual(acl.rt.synchronize_stream(stream), OK)
        self.assertEqual(self.read_int32(result, 2)[0], 123)

    def test_functions_know_their_names_and_addresses(self):
        fill = self.function(self.load(), "fill")
        self.assertEqual(acl.rt.get_function_name(fill, 16), ("fill", OK))
        self.assertEqual(acl.rt.get_function_name(fill, 4)[1], RT_PARAM_INVALID)
        aic, aiv, ret = acl.rt.get_function_addr(fill)
        self.assertEqual(ret, OK)
        self.assertNotEqual(aic, 0)
        self.assertEqual(aiv, 0)

    def test_a_binary_loads_from_data_and_unloads_once(self):
        with open(KERNELS, "rb") as f:
            data = f.read()
        bin_handle, ret = acl.rt.binary_load_from_data(acl.util.bytes_to_ptr(data), len(data), [])
        self.assertEqual(ret, OK)
        del data  # the runtime keeps no reference to the bytes
        fill = self.function(bin_handle, "fill")
        out = self.malloc(4)
        args, _ = acl.rt.kernel_args_init(fill)
        acl.rt.kernel_args_append(args, acl.util.bytes_to_ptr(struct.pack("<Q", out)), 8)
        acl.rt.kernel_args_append(args, acl.util.bytes_to_ptr(struct.pack("<i", 5)), 4)
        acl.rt.kernel_args_finalize(args)
        stream = self.stream()
        self.assertEqual(acl.rt.launch_kernel_with_config(fill, 1, stream, [], args, 0), OK)
        self.assertEqual(acl.rt.binary_unload(bin_handle), OK)  # the queued launch still runs
        self.assertEqual(acl.rt.synchronize_stream(stream), OK)
        self.assertEqual(self.read_int32(out, 1), [5])
        self.assertEqual(acl.rt.binary_unload(bin_handle), INVALID_HANDLE)
        self.assertEqual(acl.rt.binary_get_function(bin_handle, "fill"), (0, INVALID_HANDLE))

    def test_bad_input_gets_the_runtimes_codes(self):
        self.assertEqual(acl.rt.binary_load_from_file("/nonexistent/k.so", []), (0, RT_PARAM_INVALID))
        options = [{"type": acl.ACL_RT_BINARY_LOAD_OPT_LAZY_LOAD, "value": 2}]
        self.assertEqual(acl.rt.binary_load_from_file(KERNELS, options)[1], RT_PARAM_INVALID)
        bin_handle = self.load()
        self.assertEqual(acl.rt.binary_get_function(bin_handle, "no_such_kernel"), (0, RT_PARAM_INVALID))
        self.assertEqual(acl.rt.binary_get_function(0, "fill"), (0, INVALID_PARAM))
        self.assertEqual(acl.rt.kernel_args_init(12345), (0, INVALID_HANDLE))
        with self.assertRaises(TypeError):
            acl.rt.binary_load_from_file(KERNELS, [("type", 1)])
        with self.assertRaises(TypeError):
            acl.rt.launch_kernel_with_config(0, 1, 0, [{"value": 1}], 0)


if __name__ == "__main__":
    unittest.main()
