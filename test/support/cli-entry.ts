/** Entry point for tests that run the operator CLI as a process: `node --require tsx/cjs <this> <args>`. */
import { main } from '../../src/cli';

void main(process.argv.slice(2));
