import type { Logger } from '../../logger';
import type { SubjectStrategy } from './subject-strategy';
import type { ValueCodecOptions } from './value-codec';

/** What every write-log adapter is told besides where its engine is: the registry, names, the rejections topic. */
export interface WriteLogOptions {
  /** Base URL of the schema registry, e.g. `http://127.0.0.1:8081`. */
  readonly registryUrl: string;
  /** Names this process to the broker (the client id Kafka tools show for its connections and group members). */
  readonly clientId?: string;
  readonly logger?: Logger;
  /** Topic for Rejection records of undecodable values (default `rejections`). */
  readonly rejectionsTopic?: string;
  /** Subject of a topic's value schema (default TopicNameStrategy: `<topic>-value`). */
  readonly subjectFor?: SubjectStrategy;
  /** Compatibility level given to a subject when this client registers its first schema (default BACKWARD). */
  readonly compatibility?: ValueCodecOptions['compatibility'];
  /** HTTP basic credentials for the registry's mutations; anonymous without them. */
  readonly registryAuth?: ValueCodecOptions['auth'];
}
