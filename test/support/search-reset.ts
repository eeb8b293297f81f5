/** Deletes every index (and its aliases) but the engine's own dot-prefixed ones, so a suite starts as on a new engine. */
export async function deleteSearchIndices(url: string): Promise<void> {
  const listed = await fetch(`${url}/_cat/indices?format=json&h=index`);
  const names = ((await listed.json()) as { index: string }[]).map((i) => i.index).filter((name) => !name.startsWith('.'));
  for (let i = 0; i < names.length; i += 50) {
    const response = await fetch(`${url}/${names.slice(i, i + 50).join(',')}`, { method: 'DELETE' });
    if (!response.ok) throw new Error(`deleting indices answered ${response.status}: ${await response.text()}`);
  }
}
