/** An engine cannot run on this machine (no suitable `java`, no `mvn`): suites skip and say this reason. */
export class EngineUnavailable extends Error {
  override readonly name = 'EngineUnavailable';
}
