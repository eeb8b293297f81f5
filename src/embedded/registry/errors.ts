/**
 * Errors of the embedded schema registry, in Confluent Schema Registry's shape: an HTTP status plus the
 * numeric `error_code` and message its REST API answers with (`{ error_code, message }`). Clients such as
 * @kafkajs/confluent-schema-registry decide on the status; humans read the message.
 */
export class RegistryError extends Error {
  constructor(
    readonly status: number,
    readonly errorCode: number,
    message: string,
  ) {
    super(message);
    this.name = 'RegistryError';
  }

  toBody(): { error_code: number; message: string } {
    return { error_code: this.errorCode, message: this.message };
  }
}

/** The catalogue: one factory per Confluent error code we answer with. */
export const registryErrors = {
  subjectNotFound: (subject: string) => new RegistryError(404, 40401, `Subject '${subject}' not found.`),
  versionNotFound: (version: number | string) => new RegistryError(404, 40402, `Version ${version} not found.`),
  schemaNotFound: (what: number | string = '') => new RegistryError(404, 40403, what === '' ? 'Schema not found' : `Schema ${what} not found`),
  subjectSoftDeleted: (subject: string) => new RegistryError(404, 40404, `Subject '${subject}' was soft deleted.Set permanent=true to delete permanently`),
  subjectNotSoftDeleted: (subject: string) => new RegistryError(404, 40405, `Subject '${subject}' was not deleted first before being permanently deleted`),
  versionSoftDeleted: (subject: string, version: number) =>
    new RegistryError(404, 40406, `Subject '${subject}' Version ${version} was soft deleted.Set permanent=true to delete permanently`),
  versionNotSoftDeleted: (subject: string, version: number) =>
    new RegistryError(404, 40407, `Subject '${subject}' Version ${version} was not deleted first before being permanently deleted`),
  subjectConfigNotFound: (subject: string) => new RegistryError(404, 40408, `Subject '${subject}' does not have subject-level compatibility configured`),
  incompatible: (message: string) => new RegistryError(409, 409, message),
  invalidSchema: (detail: string) => new RegistryError(422, 42201, `Invalid schema: ${detail}`),
  invalidVersion: (version: string) =>
    new RegistryError(
      422,
      42202,
      `The specified version '${version}' is not a valid version id. Allowed values are between [1, 2^31-1] and the string "latest"`,
    ),
  invalidCompatibilityLevel: () =>
    new RegistryError(
      422,
      42203,
      'Invalid compatibility level. Valid values are none, backward, forward, full, backward_transitive, forward_transitive, and full_transitive',
    ),
  badRequest: (message: string) => new RegistryError(400, 400, message),
  unauthorized: () => new RegistryError(401, 401, 'Unauthorized: this operation needs HTTP basic credentials'),
  forbidden: (what: string) => new RegistryError(403, 40301, `User is denied operation on ${what}`),
  routeNotFound: () => new RegistryError(404, 404, 'HTTP 404 Not Found'),
  storeFailed: (message: string) => new RegistryError(500, 50001, `Error in the backend data store - ${message}`),
  internal: (message: string) => new RegistryError(500, 50001, message),
} as const;
