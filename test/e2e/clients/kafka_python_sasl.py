"""kafka-python over SASL/SCRAM-SHA-256 with the client settings docs/security.md shows.

usage: kafka_python_sasl.py BOOTSTRAP PASSWORD produce TOPIC KEY VALUE_FILE AUTHORIZATION
       kafka_python_sasl.py BOOTSTRAP PASSWORD find TOPIC NEEDLE
Prints one JSON object: where the record landed, or whether a record of TOPIC contains NEEDLE (utf-8).
"""
import json
import sys

from kafka import KafkaConsumer, KafkaProducer

bootstrap, pw, command = sys.argv[1], sys.argv[2], sys.argv[3]

if command == 'produce':
    topic, key, value_file, authorization = sys.argv[4:8]
    producer = KafkaProducer(bootstrap_servers=bootstrap, security_protocol='SASL_PLAINTEXT', sasl_mechanism='SCRAM-SHA-256', sasl_plain_username='client', sasl_plain_password=pw)
    with open(value_file, 'rb') as f:
        value = f.read()
    sent = producer.send(topic, key=key.encode(), value=value, headers=[('authorization', authorization.encode())]).get(timeout=30)
    producer.close()
    print(json.dumps({'partition': sent.partition, 'offset': sent.offset}))
elif command == 'find':
    topic, needle = sys.argv[4], sys.argv[5].encode()
    consumer = KafkaConsumer(topic, bootstrap_servers=bootstrap, security_protocol='SASL_PLAINTEXT', sasl_mechanism='SCRAM-SHA-256', sasl_plain_username='client', sasl_plain_password=pw,
                             auto_offset_reset='earliest', enable_auto_commit=False, consumer_timeout_ms=5000)
    found = any(needle in (record.value or b'') for record in consumer)
    consumer.close()
    print(json.dumps({'found': found}))
else:
    sys.exit('unknown command ' + command)
