import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A Maven artifact: `group:artifact:version`, optionally with a type and classifier (`:tar.gz:all`). */
export interface MavenArtifact {
  group: string;
  artifact: string;
  version: string;
}

/**
 * Where resolved engine jars and unpacked distributions live between runs: DELTABROKER_ENGINE_CACHE, else
 * `.cache/engines` in the checkout (ignored by git). Maven's own `~/.m2` holds the downloads beneath it.
 */
export function engineCacheDir(): string {
  return process.env.DELTABROKER_ENGINE_CACHE ?? path.join(checkoutRoot(), '.cache', 'engines');
}

/** The folder holding package.json, from src/ (tsx) or dist/src/ (compiled) alike. */
export function checkoutRoot(): string {
  let dir = __dirname;
  while (!existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return dir;
}

async function mvn(args: string[], cwd: string): Promise<void> {
  try {
    await run('mvn', ['-B', '-q', ...args], { cwd, maxBuffer: 16 * 1024 * 1024, timeout: 20 * 60_000 });
  } catch (error) {
    const failure = error as { stdout?: string; stderr?: string; message: string };
    const detail = `${failure.stdout ?? ''}${failure.stderr ?? ''}`.trim().split('\n').slice(-15).join('\n');
    throw new Error(`mvn ${args[0]} failed in ${cwd}: ${detail || failure.message}`, { cause: error });
  }
}

/** Whether Maven is installed (engines are resolved with it). */
export async function mavenAvailable(): Promise<boolean> {
  try {
    await run('mvn', ['-v'], { timeout: 30_000 });
    return true;
  } catch {
    return false;
  }
}

const dependencyXml = (a: MavenArtifact) =>
  `<dependency><groupId>${a.group}</groupId><artifactId>${a.artifact}</artifactId><version>${a.version}</version></dependency>`;

/**
 * A runnable classpath: the artifacts and everything they depend on, copied into `<cache>/<name>/lib` once.
 * A `.resolved` marker makes later calls free; delete the folder to resolve again.
 */
export async function resolveClasspath(name: string, artifacts: MavenArtifact[]): Promise<string> {
  const dir = path.join(engineCacheDir(), name);
  const lib = path.join(dir, 'lib');
  if (existsSync(path.join(dir, '.resolved'))) return lib;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, 'pom.xml'),
    `<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>
<groupId>deltabroker.engines</groupId><artifactId>${name}</artifactId><version>1</version><packaging>pom</packaging>
<dependencies>${artifacts.map(dependencyXml).join('')}</dependencies></project>\n`,
  );
  await mvn(['dependency:copy-dependencies', `-DoutputDirectory=${lib}`], dir);
  writeFileSync(path.join(dir, '.resolved'), `${new Date().toISOString()}\n`);
  return lib;
}

/**
 * A distribution published as an archive (`type` zip or tar.gz, with an optional classifier), unpacked into
 * `<cache>/<name>` once. Answers the folder it unpacked to.
 */
export async function resolveDistribution(name: string, artifact: MavenArtifact & { type: 'zip' | 'tar.gz'; classifier?: string }): Promise<string> {
  const dir = path.join(engineCacheDir(), name);
  if (existsSync(path.join(dir, '.resolved'))) return path.join(dir, 'dist');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(path.join(dir, 'dist'), { recursive: true });
  const coordinates = [artifact.group, artifact.artifact, artifact.version, artifact.type, ...(artifact.classifier ? [artifact.classifier] : [])].join(':');
  await mvn(['org.apache.maven.plugins:maven-dependency-plugin:3.6.1:copy', `-Dartifact=${coordinates}`, `-DoutputDirectory=${dir}`], dir);
  const archive = readdirSync(dir).find((file) => file.endsWith(`.${artifact.type}`));
  if (archive === undefined) throw new Error(`mvn copied no .${artifact.type} of ${coordinates} into ${dir}`);
  const target = path.join(dir, 'dist');
  if (artifact.type === 'zip') await run('unzip', ['-q', path.join(dir, archive), '-d', target], { maxBuffer: 16 * 1024 * 1024 });
  else await run('tar', ['-xzf', path.join(dir, archive), '-C', target]);
  rmSync(path.join(dir, archive));
  writeFileSync(path.join(dir, '.resolved'), `${new Date().toISOString()}\n`);
  return target;
}
