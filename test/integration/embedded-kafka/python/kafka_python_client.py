"""Drives Debian's kafka-python 2.0.2 against a broker, with no api_version override, and prints what it saw.

Usage: kafka_python_client.py <bootstrap> <topic> <group>
Prints one JSON object on stdout; the jest test that runs it decides what is right.
"""
import json
import sys
import time

from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer, TopicPartition
from kafka.admin import ConfigResource, ConfigResourceType, NewPartitions, NewTopic

bootstrap, topic, group = sys.argv[1], sys.argv[2], sys.argv[3]
out = {}


def consume(count, commit):
    """Reads `count` records as a member of the group, optionally commits, and leaves."""
    consumer = KafkaConsumer(
        bootstrap_servers=bootstrap,
        group_id=group,
        auto_offset_reset='earliest',
        enable_auto_commit=False,
        consumer_timeout_ms=15000,
    )
    consumer.subscribe([topic])
    seen = []
    for message in consumer:
        seen.append(message.value.decode())
        if len(seen) == count:
            break
    if commit:
        consumer.commit()
    return consumer, seen


admin = KafkaAdminClient(bootstrap_servers=bootstrap, client_id='kafka-python-admin')
out['apiVersion'] = list(admin.config['api_version'])
admin.create_topics([NewTopic(name=topic, num_partitions=1, replication_factor=1)])
out['topicListed'] = topic in admin.list_topics()

producer = KafkaProducer(bootstrap_servers=bootstrap, acks='all')
offsets = [producer.send(topic, key=b'k', value=('record-%d' % i).encode()).get(timeout=15).offset for i in range(10)]
producer.close()
out['producedOffsets'] = offsets

first, out['firstRead'] = consume(6, commit=True)
# The group has a member now: describe it, and try to delete it.
description = admin.describe_consumer_groups([group])[0]
out['describedWhileActive'] = {
    'state': description.state,
    'protocolType': description.protocol_type,
    'protocol': description.protocol,
    'members': len(description.members),
    'assignment': sorted(p for m in description.members for _, ps in m.member_assignment.assignment for p in ps) if description.members else [],
}
out['listedWhileActive'] = [g for g in admin.list_consumer_groups() if g[0] == group]
deleted = admin.delete_consumer_groups([group])
out['deleteWhileActive'] = [(g, e.__name__) for g, e in deleted]
first.close()

second, out['resumedRead'] = consume(4, commit=True)
second.close()
out['committed'] = {str(tp.partition): meta.offset for tp, meta in admin.list_consumer_group_offsets(group).items()}

admin.create_partitions({topic: NewPartitions(total_count=3)})
out['partitionsAfterCreate'] = len(KafkaConsumer(bootstrap_servers=bootstrap).partitions_for_topic(topic) or [])
admin.alter_configs([ConfigResource(ConfigResourceType.TOPIC, topic, configs={'retention.ms': '3600000'})])
described = admin.describe_configs([ConfigResource(ConfigResourceType.TOPIC, topic)])[0]
out['retentionMs'] = next(c[1] for c in described.resources[0][4] if c[0] == 'retention.ms')

deadline = time.time() + 10
while True:
    # The member left when its consumer closed; Kafka and this broker forget it at once, but give it time.
    result = admin.delete_consumer_groups([group])
    if result[0][1].errno == 0 or time.time() > deadline:
        break
    time.sleep(0.2)
out['deleteWhenEmpty'] = [(g, e.__name__) for g, e in result]
out['listedAfterDelete'] = [g for g in admin.list_consumer_groups() if g[0] == group]
admin.close()
print(json.dumps(out))
