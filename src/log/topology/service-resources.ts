import { actionTopics, type EntityConfig } from '../../tenant';
import { isTenantName } from '../../tenant/entity-config';
import { PIPELINE_TOPICS } from './topics';

/** What a topic is to the service. */
export type ServiceTopicKind = 'deltas' | 'pipeline' | 'persistence' | 'action';

/** Every consumer group of the service starts with this (see groups.ts). */
export const SERVICE_GROUP_PREFIX = 'deltabroker-';

const DEFAULT_PERSISTENCE = /^([^.]+)\.([^.]+)\.events$/;
const DEFAULT_ACTION = /^([^.]+)\.([^.]+)\.actions\.[^.]+$/;

/**
 * The topics, registry subjects and consumer groups the service owns: its pipeline topics, every topic with a
 * tenant's default name (`<tenant>.<entity>.events`, `.actions.global`, `.actions.<dc>`, reserved even before the
 * entity is configured, so nobody can prepare one), and the configured names of the entities it has seen.
 */
export class ServiceResources {
  private readonly configured = new Map<string, ServiceTopicKind>();

  /** Adds the configured topic names of these entities. */
  learn(configs: readonly EntityConfig[], datacenter: string): void {
    for (const c of configs) {
      this.configured.set(c.persistence.topic, 'persistence');
      for (const topic of actionTopics(c, datacenter)) this.configured.set(topic, 'action');
    }
  }

  kindOf(topic: string): ServiceTopicKind | undefined {
    if (topic === PIPELINE_TOPICS.deltas) return 'deltas';
    if (topic === PIPELINE_TOPICS.rejections || topic === PIPELINE_TOPICS.outcomes) return 'pipeline';
    const known = this.configured.get(topic);
    if (known) return known;
    const tenantNamed = (m: RegExpExecArray | null): boolean => m !== null && isTenantName(m[1]) && isTenantName(m[2]);
    if (tenantNamed(DEFAULT_PERSISTENCE.exec(topic))) return 'persistence';
    if (tenantNamed(DEFAULT_ACTION.exec(topic))) return 'action';
    return undefined;
  }

  /** The topic of a registry subject under the topic-name strategy (`<topic>-value`, `<topic>-key`). */
  kindOfSubject(subject: string): ServiceTopicKind | undefined {
    const topic = /^(.+)-(value|key)$/.exec(subject)?.[1];
    return topic === undefined ? undefined : this.kindOf(topic);
  }

  isServiceGroup = (group: string): boolean => group.startsWith(SERVICE_GROUP_PREFIX);
}
