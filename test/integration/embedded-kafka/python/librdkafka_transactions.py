"""Transactions through librdkafka (python3-confluent-kafka over the system librdkafka 2.0.2).

argv: bootstrap topic (two partitions, created by the test). Prints one JSON object: what a read_committed and a
read_uncommitted reader saw, how a fenced producer's commit failed, and the offsets a transaction committed."""
import json
import sys

from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition

bootstrap, topic = sys.argv[1], sys.argv[2]
base = {'bootstrap.servers': bootstrap, 'broker.address.family': 'v4'}


def producer(transactional_id):
    p = Producer({**base, 'transactional.id': transactional_id, 'transaction.timeout.ms': 30000})
    p.init_transactions(20)
    return p


def send(p, values):
    for i, v in enumerate(values):
        p.produce(topic, key=v, value=v, partition=i % 2)
    p.flush(20)


def read_all(isolation):
    c = Consumer({**base, 'group.id': 'rd-reader-' + isolation, 'isolation.level': isolation, 'enable.partition.eof': True,
                  'enable.auto.commit': False})
    c.assign([TopicPartition(topic, p, 0) for p in (0, 1)])
    values, at_end = [], set()
    while len(at_end) < 2:
        m = c.poll(10)
        if m is None:
            raise SystemExit('no end of partition reached')
        if m.error():
            if m.error().code() == -191:  # _PARTITION_EOF
                at_end.add(m.partition())
                continue
            raise KafkaException(m.error())
        values.append(m.value().decode())
    c.close()
    return sorted(values)


p = producer('rd-tx')
p.begin_transaction()
send(p, ['c1', 'c2', 'c3'])
p.commit_transaction(20)
p.begin_transaction()
send(p, ['a1', 'a2'])
p.abort_transaction(20)

# Offsets sent inside the last transaction: a group's position committed with the records.
group = Consumer({**base, 'group.id': 'rd-pipeline', 'enable.auto.commit': False})
p.begin_transaction()
send(p, ['c4'])
p.send_offsets_to_transaction([TopicPartition(topic, 0, 42)], group.consumer_group_metadata(), 20)
p.commit_transaction(20)
committed = group.committed([TopicPartition(topic, 0)], 20)[0].offset
group.close()

zombie = producer('rd-z')
zombie.begin_transaction()
send(zombie, ['zombie'])
successor = producer('rd-z')
successor.begin_transaction()
send(successor, ['successor'])
successor.commit_transaction(20)
try:
    zombie.commit_transaction(20)
    fenced = None
except KafkaException as e:
    err = e.args[0]
    fenced = {'name': err.name(), 'fatal': err.fatal()}

print(json.dumps({'committed': read_all('read_committed'), 'uncommitted': read_all('read_uncommitted'), 'fenced': fenced,
                  'groupOffset': committed}))
