"""The `acl` module: custom memory allocators (make test-python).

The runtime never calls a registered allocator; C code does, with the
functions aclrtAllocatorGetByStream returns. These cases play that C code
with ctypes, calling the addresses acl.rt.allocator_get_by_stream returns.
"""
import ctypes
import threading
import unittest

import acl
from test_acl import OK, CaughtUnraisable, RuntimeCase

INVALID_PARAM = acl.ACL_ERROR_INVALID_PARAM
INVALID_HANDLE = acl.ACL_ERROR_RT_INVALID_HANDLE

ALLOC = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t)
FREE = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)
ADVISE = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p)
GET_ADDR = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p)


def setUpModule():
    ret = acl.init()
    assert ret in (OK, acl.ACL_ERROR_REPEAT_INITIALIZE), ret
    assert acl.rt.set_device(0) == OK


def tearDownModule():
    acl.rt.reset_device(0)
    acl.finalize()


class PyAllocator:
    """Blocks are keys into a dict of ctypes buffers; every call is logged."""

    def __init__(self, handle):
        self.handle = handle
        self.buffers = {}
        self.calls = []
        self.next_block = 1

    def alloc(self, allocator, size):
        self.calls.append(("alloc", allocator, size))
        block = self.next_block
        self.next_block += 1
        self.buffers[block] = ctypes.create_string_buffer(size)
        return block

    def free(self, allocator, block):
        self.calls.append(("free", allocator, block))
        del self.buffers[block]

    def advise(self, allocator, size, addr):
        self.calls.append(("advise", allocator, size, addr))
        return self.alloc(allocator, size)

    def get_addr(self, block):
        self.calls.append(("get_addr", block))
        return ctypes.addressof(self.buffers[block])


class AllocatorCase(RuntimeCase):
    def setUp(self):
        super().setUp()
        self.descs = []

    def tearDown(self):
        for stream in self.streams:
            acl.rt.allocator_unregister(stream)
        for desc in self.descs:
            acl.rt.allocator_destroy_desc(desc)
        super().tearDown()

    def desc(self, py=None, advise=True):
        desc = acl.rt.allocator_create_desc()
        self.assertNotEqual(desc, 0)
        self.descs.append(desc)
        if py is not None:
            self.assertEqual(acl.rt.allocator_set_obj_to_desc(desc, py.handle), OK)
            self.assertEqual(acl.rt.allocator_set_alloc_func_to_desc(desc, py.alloc), OK)
            self.assertEqual(acl.rt.allocator_set_free_func_to_desc(desc, py.free), OK)
            self.assertEqual(acl.rt.allocator_set_get_addr_from_block_func_to_desc(desc, py.get_addr), OK)
            if advise:
                self.assertEqual(acl.rt.allocator_set_alloc_advise_func_to_desc(desc, py.advise), OK)
        return desc

    def registered(self, stream):
        desc, allocator, alloc, free, advise, get_addr, ret = acl.rt.allocator_get_by_stream(stream)
        self.assertEqual(ret, OK)
        return (desc, allocator, ALLOC(alloc), FREE(free), ADVISE(advise) if advise else None,
                GET_ADDR(get_addr))


class TestDescriptors(AllocatorCase):
    def test_create_and_destroy_once(self):
        desc = acl.rt.allocator_create_desc()
        self.assertIsInstance(desc, int)
        self.assertNotEqual(desc, 0)
        self.assertEqual(acl.rt.allocator_destroy_desc(desc), OK)
        self.assertEqual(acl.rt.allocator_destroy_desc(desc), INVALID_PARAM)
        self.assertEqual(acl.rt.allocator_destroy_desc(0), INVALID_PARAM)
        self.assertEqual(acl.rt.allocator_destroy_desc(None), INVALID_PARAM)

    def test_setters_reject_none_and_destroyed_or_foreign_descriptors(self):
        py = PyAllocator(0x1000)
        desc = self.desc()
        self.assertEqual(acl.rt.allocator_set_obj_to_desc(desc, 0), INVALID_PARAM)
        self.assertEqual(acl.rt.allocator_set_alloc_func_to_desc(desc, None), INVALID_PARAM)
        self.assertIn("alloc function is NULL", acl.get_recent_err_msg())
        self.assertEqual(acl.rt.allocator_set_free_func_to_desc(0, py.free), INVALID_PARAM)
        self.assertEqual(acl.rt.allocator_set_get_addr_from_block_func_to_desc(12345, py.get_addr), INVALID_PARAM)
        dead = acl.rt.allocator_create_desc()
        self.assertEqual(acl.rt.allocator_destroy_desc(dead), OK)
        self.assertEqual(acl.rt.allocator_set_alloc_advise_func_to_desc(dead, py.advise), INVALID_PARAM)
        self.assertEqual(acl.rt.allocator_set_obj_to_desc(dead, py.handle), INVALID_PARAM)

    def test_setters_raise_type_error_for_non_callables_and_wrong_arguments(self):
        desc = self.desc()
        with self.assertRaises(TypeError):
            acl.rt.allocator_set_alloc_func_to_desc(desc, 42)
        with self.assertRaises(TypeError):
            acl.rt.allocator_set_obj_to_desc(desc, "allocator")
        with self.assertRaises(TypeError):
            acl.rt.allocator_register(self.stream())


class TestRegistration(AllocatorCase):
    def test_register_needs_a_stream_and_a_complete_descriptor(self):
        py = PyAllocator(0x1000)
        stream = self.stream()
        self.assertEqual(acl.rt.allocator_register(0, self.desc(py)), INVALID_PARAM)
        partial = self.desc()
        self.assertEqual(acl.rt.allocator_set_alloc_func_to_desc(partial, py.alloc), OK)
        self.assertEqual(acl.rt.allocator_register(stream, partial), INVALID_PARAM)
        self.assertIn("has no allocator", acl.get_recent_err_msg())
        self.assertEqual(acl.rt.allocator_set_obj_to_desc(partial, py.handle), OK)
        self.assertEqual(acl.rt.allocator_register(stream, partial), INVALID_PARAM)
        self.assertIn("has no free function", acl.get_recent_err_msg())
        *_, ret = acl.rt.allocator_get_by_stream(stream)
        self.assertEqual(ret, INVALID_PARAM)

    def test_get_by_stream_returns_the_descriptor_and_all_zero_when_not_registered(self):
        py = PyAllocator(0x1000)
        stream = self.stream()
        self.assertEqual(acl.rt.allocator_get_by_stream(stream), (0, 0, 0, 0, 0, 0, INVALID_PARAM))
        desc = self.desc(py, advise=False)
        self.assertEqual(acl.rt.allocator_register(stream, desc), OK)
        got_desc, allocator, alloc, free, advise, get_addr, ret = acl.rt.allocator_get_by_stream(stream)
        self.assertEqual(ret, OK)
        self.assertEqual(got_desc, desc)
        self.assertNotEqual(allocator, 0)
        self.assertTrue(alloc and free and get_addr)
        self.assertEqual(advise, 0)  # not set: optional
        self.assertEqual(acl.rt.allocator_unregister(stream), OK)
        self.assertEqual(acl.rt.allocator_get_by_stream(stream)[-1], INVALID_PARAM)
        self.assertEqual(acl.rt.allocator_unregister(stream), OK)

    def test_a_destroyed_stream_is_invalid_handle_and_unregisters_fine(self):
        py = PyAllocator(0x1000)
        stream, ret = acl.rt.create_stream()
        self.assertEqual(ret, OK)
        self.assertEqual(acl.rt.allocator_register(stream, self.desc(py)), OK)
        self.assertEqual(acl.rt.destroy_stream(stream), OK)
        self.assertEqual(acl.rt.allocator_get_by_stream(stream)[-1], INVALID_HANDLE)
        self.assertEqual(acl.rt.allocator_unregister(stream), OK)


class TestCallsThroughC(AllocatorCase):
    def test_the_sample_flow_reaches_the_python_functions_with_the_allocator_int(self):
        py = PyAllocator(0xA110C)
        stream = self.stream()
        desc = self.desc(py)
        self.assertEqual(acl.rt.allocator_register(stream, desc), OK)
        got_desc, allocator, alloc, free, advise, get_addr = self.registered(stream)
        self.assertEqual(got_desc, desc)

        block = alloc(allocator, 256)
        self.assertTrue(block)
        addr = get_addr(block)
        ctypes.memset(addr, 0xAB, 256)
        self.assertEqual(ctypes.string_at(addr, 256), b"\xab" * 256)
        hint = 0x7000
        advised = advise(allocator, 128, hint)
        self.assertTrue(advised)
        self.assertNotEqual(get_addr(advised), addr)
        free(allocator, advised)
        free(allocator, block)

        self.assertEqual([c[0] for c in py.calls],
                         ["alloc", "get_addr", "advise", "alloc", "get_addr", "free", "free"])
        self.assertEqual(py.calls[0], ("alloc", 0xA110C, 256))
        self.assertEqual(py.calls[2], ("advise", 0xA110C, 128, hint))
        self.assertEqual(py.buffers, {})  # both blocks freed, the ones alloc returned

    def test_a_registration_keeps_the_functions_it_was_made_with(self):
        first, second = PyAllocator(0x1), PyAllocator(0x2)
        stream = self.stream()
        desc = self.desc(first)
        self.assertEqual(acl.rt.allocator_register(stream, desc), OK)
        self.assertEqual(acl.rt.allocator_set_alloc_func_to_desc(desc, second.alloc), OK)
        self.assertEqual(acl.rt.allocator_destroy_desc(desc), OK)
        self.descs.remove(desc)
        _, allocator, alloc, free, _, get_addr = self.registered(stream)
        block = alloc(allocator, 16)
        self.assertTrue(get_addr(block))
        free(allocator, block)
        self.assertEqual(second.calls, [])
        self.assertEqual([c[0] for c in first.calls], ["alloc", "get_addr", "free"])

    def test_a_block_outlives_the_unregister_it_was_allocated_before(self):
        py = PyAllocator(0x1)
        stream = self.stream()
        self.assertEqual(acl.rt.allocator_register(stream, self.desc(py)), OK)
        _, allocator, alloc, free, _, get_addr = self.registered(stream)
        block = alloc(allocator, 32)
        self.assertEqual(acl.rt.allocator_unregister(stream), OK)
        for desc in self.descs:
            acl.rt.allocator_destroy_desc(desc)
        self.descs.clear()
        self.assertTrue(get_addr(block))
        free(allocator, block)
        self.assertEqual(py.buffers, {})

    def test_an_exception_or_a_zero_block_makes_the_allocation_null(self):
        py = PyAllocator(0x1)

        def failing_alloc(allocator, size):
            raise MemoryError("no room")

        stream = self.stream()
        desc = self.desc(py)
        self.assertEqual(acl.rt.allocator_set_alloc_func_to_desc(desc, failing_alloc), OK)
        self.assertEqual(acl.rt.allocator_set_alloc_advise_func_to_desc(desc, lambda a, s, h: 0), OK)
        self.assertEqual(acl.rt.allocator_register(stream, desc), OK)
        _, allocator, alloc, _, advise, _ = self.registered(stream)
        with CaughtUnraisable() as caught:
            self.assertIsNone(alloc(allocator, 8))
        self.assertEqual([exc for exc, _ in caught.seen], [MemoryError])
        self.assertIsNone(advise(allocator, 8, 0))

    def test_the_functions_can_be_called_from_several_threads_at_once(self):
        py = PyAllocator(0x1)
        stream = self.stream()
        self.assertEqual(acl.rt.allocator_register(stream, self.desc(py)), OK)
        _, allocator, alloc, free, _, get_addr = self.registered(stream)
        # A ctypes call releases the GIL; the trampolines take it back in whatever thread they run.
        results = []

        def worker():
            block = alloc(allocator, 64)
            results.append(bool(get_addr(block)))
            free(allocator, block)

        threads = [threading.Thread(target=worker) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(results, [True] * 4)
        self.assertEqual(py.buffers, {})


if __name__ == "__main__":
    unittest.main()
