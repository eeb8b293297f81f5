/**
 * The one place the service makes a kafkajs client: every client made here runs without kafkajs's 1 ms timer loop
 * (request-queue-timer.ts, imported before any client connects). A lint rule refuses `new Kafka(…)` anywhere else
 * in the production code, so a new module that needs a client gets the fix by construction.
 */
import { Kafka, type KafkaConfig } from 'kafkajs';
import './request-queue-timer';

export function kafkaClient(config: KafkaConfig): Kafka {
  return new Kafka(config);
}
