/** Which registry subject holds a topic's value schema. */
export type SubjectStrategy = (topic: string) => string;

/** Confluent's default: the value schema of topic `t` lives under subject `t-value`. */
export const topicNameStrategy: SubjectStrategy = (topic) => `${topic}-value`;
