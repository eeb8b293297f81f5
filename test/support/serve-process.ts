/** Entry point for tests that run the service as a real process (to kill it): `node --require tsx/cjs <this>`. */
import { main } from '../../src/cli';

void main(['serve']);
