// Node's HTTP module, taken with process.getBuiltinModule rather than `import ... from 'node:http'`. An ESM import of
// a built-in builds its whole namespace, and node:http's includes WebSocket, MessageEvent and CloseEvent: getters that
// load Node's bundled copy of undici (0.8 MB of source, about 3 MB of heap) in every thread that imports the module,
// though nothing here uses them.
export const nodeHttp = process.getBuiltinModule('node:http');
