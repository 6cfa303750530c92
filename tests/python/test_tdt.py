"""The `acl` module: acl.tdt, tensor data transfer channels (make test-python).

Two handles of the same device and name are the two ends of one channel;
a send copies the items' dims and bytes, a receive fills an empty dataset
with items the dataset owns.
"""
import ctypes
import struct
import threading
import unittest

import acl
from test_acl import OK

INVALID_PARAM = acl.ACL_ERROR_INVALID_PARAM
TENSOR = acl.ACL_TENSOR_DATA_TENSOR


def setUpModule():
    ret = acl.init()
    assert ret in (OK, acl.ACL_ERROR_REPEAT_INITIALIZE), ret
    assert acl.rt.set_device(0) == OK


def tearDownModule():
    acl.rt.reset_device(0)
    acl.finalize()


class TestTdt(unittest.TestCase):
    def channel(self, name, capacity=None):
        if capacity is None:
            handle = acl.tdt.create_channel(0, name)
        else:
            handle = acl.tdt.create_channel_with_capacity(0, name, capacity)
        self.assertNotEqual(handle, 0)
        self.addCleanup(acl.tdt.destroy_channel, handle)
        return handle

    def dataset(self):
        dataset = acl.tdt.create_dataset()
        self.assertNotEqual(dataset, 0)
        self.addCleanup(acl.tdt.destroy_dataset, dataset)
        return dataset

    def item(self, values, dims):
        buf = ctypes.create_string_buffer(struct.pack("%di" % len(values), *values))
        self.addCleanup(lambda b=buf: None)  # keeps the bytes alive for the case
        item = acl.tdt.create_data_item(TENSOR, dims, acl.ACL_INT32, ctypes.addressof(buf), 4 * len(values))
        self.assertNotEqual(item, 0)
        self.addCleanup(acl.tdt.destroy_data_item, item)
        return item, ctypes.addressof(buf)

    def test_item_getters(self):
        item, addr = self.item([1, 2, 3, 4, 5, 6], [2, 3])
        self.assertEqual(acl.tdt.get_tensor_type_from_item(item), TENSOR)
        self.assertEqual(acl.tdt.get_data_type_from_item(item), acl.ACL_INT32)
        self.assertEqual(acl.tdt.get_data_addr_from_item(item), addr)
        self.assertEqual(acl.tdt.get_data_size_from_item(item), 24)
        self.assertEqual(acl.tdt.get_dim_num_from_item(item), 2)
        self.assertEqual(acl.tdt.get_dims_from_item(item), ([2, 3], OK))
        self.assertEqual(acl.tdt.get_dims_from_item(item, 4), ([2, 3], OK))
        self.assertEqual(acl.tdt.get_dims_from_item(item, 1), ([], INVALID_PARAM))
        self.assertEqual(acl.tdt.get_slice_info_from_item(item), (0, 0, OK))

    def test_send_and_receive_copy_the_tensors(self):
        sender, receiver = self.channel("py-tdt", 4), self.channel("py-tdt", 4)
        item, _ = self.item([7, 8, 9], [3])
        end = acl.tdt.create_data_item(acl.ACL_TENSOR_DATA_END_OF_SEQUENCE, None, acl.ACL_DT_UNDEFINED, 0, 0)
        self.assertNotEqual(end, 0)
        self.addCleanup(acl.tdt.destroy_data_item, end)
        out = self.dataset()
        self.assertEqual(acl.tdt.add_data_item(out, item), OK)
        self.assertEqual(acl.tdt.add_data_item(out, end), OK)
        self.assertEqual(acl.tdt.get_dataset_size(out), 2)
        self.assertEqual(acl.tdt.get_data_item(out, 0), item)
        self.assertEqual(acl.tdt.get_data_item(out, 2), 0)
        self.assertEqual(acl.tdt.query_channel_size(receiver), (0, OK))
        self.assertEqual(acl.tdt.send_tensor(sender, out, -1), OK)
        self.assertEqual(acl.tdt.query_channel_size(receiver), (1, OK))
        into = self.dataset()
        self.assertEqual(acl.tdt.receive_tensor(receiver, into, 0), OK)
        self.assertEqual(acl.tdt.get_dataset_size(into), 2)
        got = acl.tdt.get_data_item(into, 0)
        self.assertNotEqual(got, item)
        self.assertEqual(acl.tdt.get_dims_from_item(got), ([3], OK))
        data = acl.util.ptr_to_bytes(acl.tdt.get_data_addr_from_item(got), acl.tdt.get_data_size_from_item(got))
        self.assertEqual(struct.unpack("3i", data), (7, 8, 9))
        self.assertEqual(acl.tdt.get_tensor_type_from_item(acl.tdt.get_data_item(into, 1)),
                         acl.ACL_TENSOR_DATA_END_OF_SEQUENCE)
        # Received items are the dataset's.
        self.assertEqual(acl.tdt.destroy_data_item(got), INVALID_PARAM)
        self.assertEqual(acl.tdt.receive_tensor(receiver, into, 0), acl.ACL_ERROR_RT_QUEUE_EMPTY)

    def test_full_channel_and_clean(self):
        handle = self.channel("py-tdt-full", 2)
        item, _ = self.item([1], [1])
        out = self.dataset()
        self.assertEqual(acl.tdt.add_data_item(out, item), OK)
        self.assertEqual(acl.tdt.send_tensor(handle, out, 0), OK)
        self.assertEqual(acl.tdt.send_tensor(handle, out, 0), OK)
        self.assertEqual(acl.tdt.send_tensor(handle, out, 0), acl.ACL_ERROR_RT_QUEUE_FULL)
        self.assertEqual(acl.tdt.send_tensor(handle, out, 1), acl.ACL_ERROR_RT_QUEUE_FULL)
        self.assertEqual(acl.tdt.query_channel_size(handle), (2, OK))
        self.assertEqual(acl.tdt.clean_channel(handle), OK)
        self.assertEqual(acl.tdt.query_channel_size(handle), (0, OK))

    def test_stop_wakes_a_blocked_receive(self):
        handle = self.channel("py-tdt-stop", 2)
        into = self.dataset()
        results = []
        # The receive waits with the GIL released; stop from this thread wakes it.
        worker = threading.Thread(target=lambda: results.append(acl.tdt.receive_tensor(handle, into, -1)))
        worker.start()
        self.assertEqual(acl.tdt.stop_channel(handle), OK)
        worker.join()
        self.assertEqual(results, [acl.ACL_ERROR_FAILURE])
        self.assertEqual(acl.tdt.receive_tensor(handle, into, 0), acl.ACL_ERROR_FAILURE)

    def test_a_blocked_receive_lets_a_python_sender_run(self):
        # The worker usually reaches receive_tensor(-1) first and waits there; only with the GIL
        # released can this thread then send (holding it, the test would hang).
        receiver, sender = self.channel("py-tdt-wait", 2), self.channel("py-tdt-wait", 2)
        item, _ = self.item([42], [1])
        out, into = self.dataset(), self.dataset()
        self.assertEqual(acl.tdt.add_data_item(out, item), OK)
        results = []
        worker = threading.Thread(target=lambda: results.append(acl.tdt.receive_tensor(receiver, into, -1)))
        worker.start()
        self.assertEqual(acl.tdt.send_tensor(sender, out, -1), OK)
        worker.join()
        self.assertEqual(results, [OK])
        got = acl.tdt.get_data_item(into, 0)
        self.assertEqual(acl.util.ptr_to_bytes(acl.tdt.get_data_addr_from_item(got), 4), struct.pack("i", 42))

    def test_default_channel_refuses_size_and_clean(self):
        handle = self.channel("py-tdt-default")
        self.assertEqual(acl.tdt.query_channel_size(handle), (0, acl.ACL_ERROR_FEATURE_UNSUPPORTED))
        self.assertEqual(acl.tdt.clean_channel(handle), acl.ACL_ERROR_FEATURE_UNSUPPORTED)
        self.assertEqual(acl.ACLRTX_TDT_DEFAULT_CAPACITY, 128)

    def test_bad_input(self):
        self.assertEqual(acl.tdt.create_channel(0, None), 0)
        self.assertEqual(acl.tdt.create_channel(9999, "py-tdt-bad"), 0)
        self.assertEqual(acl.tdt.create_channel_with_capacity(0, "py-tdt-bad", 1), 0)
        self.assertEqual(acl.tdt.destroy_channel(0), INVALID_PARAM)
        self.assertEqual(acl.tdt.stop_channel(None), INVALID_PARAM)
        self.assertEqual(acl.tdt.query_channel_size(0), (0, INVALID_PARAM))
        self.assertEqual(acl.tdt.send_tensor(0, 0, 0), INVALID_PARAM)
        self.assertEqual(acl.tdt.receive_tensor(0, 0, 0), INVALID_PARAM)
        handle = self.channel("py-tdt-bad", 2)
        empty = self.dataset()
        self.assertEqual(acl.tdt.send_tensor(handle, empty, 0), INVALID_PARAM)
        self.assertEqual(acl.tdt.receive_tensor(handle, empty, -2), INVALID_PARAM)
        self.assertEqual(acl.tdt.create_data_item(TENSOR, [], acl.ACL_INT32, 0, 0), 0)
        self.assertEqual(acl.tdt.create_data_item(42, None, acl.ACL_INT32, 0, 0), 0)
        self.assertEqual(acl.tdt.create_data_item(acl.ACL_TENSOR_DATA_END_OF_SEQUENCE, [1], acl.ACL_INT32, 0, 0), 0)
        with self.assertRaises(TypeError):
            acl.tdt.create_data_item(TENSOR, 3, acl.ACL_INT32, 0, 0)
        with self.assertRaises(TypeError):
            acl.tdt.create_data_item(TENSOR, ["a"], acl.ACL_INT32, 0, 0)
        self.assertEqual(acl.tdt.destroy_data_item(0), INVALID_PARAM)
        self.assertEqual(acl.tdt.get_tensor_type_from_item(0), acl.ACL_TENSOR_DATA_UNDEFINED)
        self.assertEqual(acl.tdt.get_data_type_from_item(0), acl.ACL_DT_UNDEFINED)
        self.assertEqual(acl.tdt.get_data_addr_from_item(0), 0)
        self.assertEqual(acl.tdt.get_data_size_from_item(0), 0)
        self.assertEqual(acl.tdt.get_dim_num_from_item(0), 0)
        self.assertEqual(acl.tdt.get_dims_from_item(0, 1), ([], INVALID_PARAM))
        self.assertEqual(acl.tdt.get_slice_info_from_item(0), (0, 0, INVALID_PARAM))
        self.assertEqual(acl.tdt.destroy_dataset(0), INVALID_PARAM)
        self.assertEqual(acl.tdt.add_data_item(0, 0), INVALID_PARAM)
        self.assertEqual(acl.tdt.add_data_item(empty, 0), INVALID_PARAM)
        self.assertEqual(acl.tdt.get_data_item(0, 0), 0)
        self.assertEqual(acl.tdt.get_dataset_size(0), 0)
        self.assertIsNone(acl.tdt.get_dataset_name(0))
        self.assertIsInstance(acl.tdt.get_dataset_name(empty), str)


if __name__ == "__main__":
    unittest.main()
