"""Two static consumers (librdkafka through confluent-kafka); the second restarts under its group.instance.id.

Usage: static_members.py <bootstrap> <topic> <group>
  a and b join <group> with group.instance.id 'static-a' and 'static-b' and split <topic>'s partitions; b
  closes (a static member sends no LeaveGroup) and a new consumer starts as 'static-b'. Every assign and
  revoke either consumer saw before the restart and around it (until just before both close) is printed as
  one JSON object; the jest test that runs it decides what is right.
"""
import json
import sys
import time

from confluent_kafka import Consumer

bootstrap, topic, group = sys.argv[1:4]
events = []


def consumer(name, instance_id):
    c = Consumer({
        'bootstrap.servers': bootstrap,
        'group.id': group,
        'group.instance.id': instance_id,
        'session.timeout.ms': 6000,
        'heartbeat.interval.ms': 300,
        'partition.assignment.strategy': 'range',
        'auto.offset.reset': 'earliest',
    })

    def on_assign(_, partitions):
        events.append([name, 'assigned', sorted(p.partition for p in partitions)])

    def on_revoke(_, partitions):
        events.append([name, 'revoked', sorted(p.partition for p in partitions)])

    c.subscribe([topic], on_assign=on_assign, on_revoke=on_revoke)
    return c


def assigned(name):
    """The partitions `name` holds after its last assign or revoke."""
    held = []
    for who, what, partitions in events:
        if who == name:
            held = partitions if what == 'assigned' else []
    return held


def poll_until(consumers, done, timeout_s):
    until = time.time() + timeout_s
    while time.time() < until and not done():
        for c in consumers:
            c.poll(0.05)
    return done()


def poll_for(consumers, seconds):
    poll_until(consumers, lambda: False, seconds)


a = consumer('a', 'static-a')
b = consumer('b', 'static-b')
split = poll_until([a, b], lambda: assigned('a') and assigned('b'), 30)
poll_for([a, b], 1.5)  # settle: nothing more should happen
before_restart = len(events)
b.close()
b2 = consumer('b2', 'static-b')
rejoined = poll_until([a, b2], lambda: assigned('b2'), 30)
poll_for([a, b2], 3)  # a heartbeats about ten times meanwhile: a rebalance would reach it
around_restart = events[before_restart:]
a.close()
b2.close()
print(json.dumps({'split': bool(split), 'rejoined': bool(rejoined), 'beforeRestart': events[:before_restart], 'aroundRestart': around_restart}))
