// Node's fs, and the globSync Node 20 lacks (node20-globsync.mjs).
import fs from 'node:fs';

export * from 'node:fs';
export default fs;
export function globSync() {
    throw new Error('fs.globSync needs Node 22 or later');
}
