"""Calls librdkafka's admin API (the system's librdkafka.so.1, through ctypes) against a broker and prints what it saw.

Usage: librdkafka_admin.py <bootstrap> <new-topic> <group> <group-topic>
  creates <new-topic> with the broker's default partition count and replication factor (CreateTopics v4,
  KIP-464) and message.timestamp.type=LogAppendTime; lists groups (all, and those in state Empty), describes
  <group>, deletes its offsets on <group-topic> partition 0, raises <new-topic> to 5 partitions, sets its
  retention.ms, and deletes <group>. Prints one JSON object; the jest test that runs it decides what is right.
"""
import ctypes
import json
import sys

rk_lib = ctypes.CDLL('librdkafka.so.1')
P = ctypes.c_void_p
S = ctypes.c_char_p
SIZE = ctypes.c_size_t


def fn(name, restype, *argtypes):
    f = getattr(rk_lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


version_str = fn('rd_kafka_version_str', S)
conf_new = fn('rd_kafka_conf_new', P)
conf_set = fn('rd_kafka_conf_set', ctypes.c_int, P, S, S, S, SIZE)
new_client = fn('rd_kafka_new', P, ctypes.c_int, P, S, SIZE)
destroy = fn('rd_kafka_destroy', None, P)
queue_new = fn('rd_kafka_queue_new', P, P)
queue_destroy = fn('rd_kafka_queue_destroy', None, P)
queue_poll = fn('rd_kafka_queue_poll', P, P, ctypes.c_int)
event_error = fn('rd_kafka_event_error', ctypes.c_int, P)
event_error_string = fn('rd_kafka_event_error_string', S, P)
event_destroy = fn('rd_kafka_event_destroy', None, P)
err2name = fn('rd_kafka_err2name', S, ctypes.c_int)
error_code = fn('rd_kafka_error_code', ctypes.c_int, P)
options_new = fn('rd_kafka_AdminOptions_new', P, P, ctypes.c_int)
options_set_states = fn('rd_kafka_AdminOptions_set_match_consumer_group_states', P, P, ctypes.POINTER(ctypes.c_int), SIZE)

ADMIN_OP_LISTCONSUMERGROUPS = 12
GROUP_STATES = ['Unknown', 'PreparingRebalance', 'CompletingRebalance', 'Stable', 'Dead', 'Empty']
RESOURCE_TOPIC = 2


class TopicPartition(ctypes.Structure):
    _fields_ = [('topic', S), ('partition', ctypes.c_int32), ('offset', ctypes.c_int64), ('metadata', P),
                ('metadata_size', SIZE), ('opaque', P), ('err', ctypes.c_int), ('_private', P)]


class TopicPartitionList(ctypes.Structure):
    _fields_ = [('cnt', ctypes.c_int), ('size', ctypes.c_int), ('elems', ctypes.POINTER(TopicPartition))]


def errname(code):
    return err2name(code).decode()


errstr = ctypes.create_string_buffer(512)
conf = conf_new()
conf_set(conf, b'bootstrap.servers', sys.argv[1].encode(), errstr, 512)
client = new_client(0, conf, errstr, 512)
if not client:
    sys.exit('rd_kafka_new: ' + errstr.value.decode())
queue = queue_new(client)
topic, group, group_topic = sys.argv[2].encode(), sys.argv[3].encode(), sys.argv[4].encode()
out = {'librdkafka': version_str().decode()}


def call(request, result_getter, read):
    """Issues one admin request, waits for its event, and reads the result with `read(result)`."""
    request()
    event = None
    while not event:
        event = queue_poll(queue, 1000)
    try:
        if event_error(event):
            return {'error': errname(event_error(event)), 'message': event_error_string(event).decode()}
        return read(result_getter(event))
    finally:
        event_destroy(event)


def array(getter, result):
    count = SIZE()
    items = getter(result, ctypes.byref(count))
    return [items[i] for i in range(count.value)]


def topic_results(getter_name):
    getter = fn(getter_name, ctypes.POINTER(P), P, ctypes.POINTER(SIZE))
    name = fn('rd_kafka_topic_result_name', S, P)
    error = fn('rd_kafka_topic_result_error', ctypes.c_int, P)
    return lambda result: [{'name': name(t).decode(), 'error': errname(error(t))} for t in array(getter, result)]


def group_results(getter_name):
    getter = fn(getter_name, ctypes.POINTER(P), P, ctypes.POINTER(SIZE))
    name = fn('rd_kafka_group_result_name', S, P)
    error = fn('rd_kafka_group_result_error', P, P)
    partitions = fn('rd_kafka_group_result_partitions', ctypes.POINTER(TopicPartitionList), P)

    def read(result):
        groups = []
        for g in array(getter, result):
            e = error(g)
            parts = partitions(g)
            listed = [] if not parts else [
                {'topic': parts.contents.elems[i].topic.decode(), 'partition': parts.contents.elems[i].partition, 'error': errname(parts.contents.elems[i].err)}
                for i in range(parts.contents.cnt)]
            groups.append({'group': name(g).decode(), 'error': errname(error_code(e)) if e else 'NO_ERROR', 'partitions': listed})
        return groups
    return read


# CreateTopics with -1 partitions and -1 replication factor: the broker's defaults (needs CreateTopics v4).
new_topic = fn('rd_kafka_NewTopic_new', P, S, ctypes.c_int, ctypes.c_int, S, SIZE)(topic, -1, -1, errstr, 512)
fn('rd_kafka_NewTopic_set_config', ctypes.c_int, P, S, S)(new_topic, b'message.timestamp.type', b'LogAppendTime')
topics = (P * 1)(new_topic)
out['createTopics'] = call(
    lambda: fn('rd_kafka_CreateTopics', None, P, P, SIZE, P, P)(client, topics, 1, None, queue),
    fn('rd_kafka_event_CreateTopics_result', P, P), topic_results('rd_kafka_CreateTopics_result_topics'))

listing_getter = fn('rd_kafka_ListConsumerGroups_result_valid', ctypes.POINTER(P), P, ctypes.POINTER(SIZE))
listing_id = fn('rd_kafka_ConsumerGroupListing_group_id', S, P)
listing_state = fn('rd_kafka_ConsumerGroupListing_state', ctypes.c_int, P)
list_groups = fn('rd_kafka_ListConsumerGroups', None, P, P, P)
list_result = fn('rd_kafka_event_ListConsumerGroups_result', P, P)


def read_listings(result):
    return sorted([listing_id(g).decode(), GROUP_STATES[listing_state(g)]] for g in array(listing_getter, result))


out['listGroups'] = call(lambda: list_groups(client, None, queue), list_result, read_listings)
empty_only = options_new(client, ADMIN_OP_LISTCONSUMERGROUPS)
states = (ctypes.c_int * 1)(GROUP_STATES.index('Empty'))
options_set_states(empty_only, states, 1)
out['listEmptyGroups'] = call(lambda: list_groups(client, empty_only, queue), list_result, read_listings)

describe_getter = fn('rd_kafka_DescribeConsumerGroups_result_groups', ctypes.POINTER(P), P, ctypes.POINTER(SIZE))
describe_fields = {
    'group': (fn('rd_kafka_ConsumerGroupDescription_group_id', S, P), lambda v: v.decode()),
    'state': (fn('rd_kafka_ConsumerGroupDescription_state', ctypes.c_int, P), lambda v: GROUP_STATES[v]),
    'assignor': (fn('rd_kafka_ConsumerGroupDescription_partition_assignor', S, P), lambda v: v.decode() if v else None),
    'members': (fn('rd_kafka_ConsumerGroupDescription_member_count', SIZE, P), int),
    'error': (fn('rd_kafka_ConsumerGroupDescription_error', P, P), lambda e: errname(error_code(e)) if e else 'NO_ERROR'),
}
groups = (S * 1)(group)
out['describeGroup'] = call(
    lambda: fn('rd_kafka_DescribeConsumerGroups', None, P, P, SIZE, P, P)(client, groups, 1, None, queue),
    fn('rd_kafka_event_DescribeConsumerGroups_result', P, P),
    lambda result: [{k: conv(get(g)) for k, (get, conv) in describe_fields.items()} for g in array(describe_getter, result)])

partitions = fn('rd_kafka_topic_partition_list_new', P, ctypes.c_int)(1)
fn('rd_kafka_topic_partition_list_add', P, P, S, ctypes.c_int32)(partitions, group_topic, 0)
delete_offsets = (P * 1)(fn('rd_kafka_DeleteConsumerGroupOffsets_new', P, S, P)(group, partitions))
out['deleteOffsets'] = call(
    lambda: fn('rd_kafka_DeleteConsumerGroupOffsets', None, P, P, SIZE, P, P)(client, delete_offsets, 1, None, queue),
    fn('rd_kafka_event_DeleteConsumerGroupOffsets_result', P, P), group_results('rd_kafka_DeleteConsumerGroupOffsets_result_groups'))

new_parts = (P * 1)(fn('rd_kafka_NewPartitions_new', P, S, SIZE, S, SIZE)(topic, 5, errstr, 512))
out['createPartitions'] = call(
    lambda: fn('rd_kafka_CreatePartitions', None, P, P, SIZE, P, P)(client, new_parts, 1, None, queue),
    fn('rd_kafka_event_CreatePartitions_result', P, P), topic_results('rd_kafka_CreatePartitions_result_topics'))

resource = fn('rd_kafka_ConfigResource_new', P, ctypes.c_int, S)(RESOURCE_TOPIC, topic)
fn('rd_kafka_ConfigResource_set_config', ctypes.c_int, P, S, S)(resource, b'retention.ms', b'7200000')
fn('rd_kafka_ConfigResource_set_config', ctypes.c_int, P, S, S)(resource, b'message.timestamp.type', b'LogAppendTime')
resources = (P * 1)(resource)
resource_getter = fn('rd_kafka_AlterConfigs_result_resources', ctypes.POINTER(P), P, ctypes.POINTER(SIZE))
resource_error = fn('rd_kafka_ConfigResource_error', ctypes.c_int, P)
out['alterConfigs'] = call(
    lambda: fn('rd_kafka_AlterConfigs', None, P, P, SIZE, P, P)(client, resources, 1, None, queue),
    fn('rd_kafka_event_AlterConfigs_result', P, P), lambda result: [errname(resource_error(r)) for r in array(resource_getter, result)])

delete_groups = (P * 1)(fn('rd_kafka_DeleteGroup_new', P, S)(group))
out['deleteGroups'] = call(
    lambda: fn('rd_kafka_DeleteGroups', None, P, P, SIZE, P, P)(client, delete_groups, 1, None, queue),
    fn('rd_kafka_event_DeleteGroups_result', P, P), group_results('rd_kafka_DeleteGroups_result_groups'))

queue_destroy(queue)
destroy(client)
print(json.dumps(out))
