export * from './entity-config';
export * from './parse-entity-config';
export * from './permissions';
export * from './source';
export { FileEntityConfigSource, type FileEntityConfigSourceOptions } from './file-source';
export { HttpEntityConfigSource, type HttpEntityConfigSourceOptions } from './http-source';
export * from './physical-names';
export * from './record-key';
export { ClaimingEntityConfigSource, claimsOf, type ClaimingSourceOptions } from './name-claims';
