// Module resolution hook for node20-globsync.mjs: `fs` and `node:fs` resolve to the shim, except from the shim itself.
const shim = new URL('./node20-fs.mjs', import.meta.url).href;

export async function resolve(specifier, context, next) {
    if ((specifier === 'fs' || specifier === 'node:fs') && context.parentURL !== shim) {
        return { url: shim, shortCircuit: true };
    }
    return next(specifier, context);
}
