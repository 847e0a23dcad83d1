// The shape of a V8 .cpuprofile (what the inspector's Profiler.stop returns), and how the bench's readers of it name a
// frame: its function, and its file relative to the working directory.
export interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

export interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

export interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  /** Microseconds since the previous sample. */
  timeDeltas: number[];
}

const root = process.cwd();

export const shortUrl = (url: string) => {
  const path = url.replace(/^file:\/\//, '');
  return path.startsWith(root + '/') ? path.slice(root.length + 1) : path;
};

/** A frame of the service's own code (src/ or plugins/). */
export const isProject = (cf: CallFrame) => /^(src|plugins)\//.test(shortUrl(cf.url));
