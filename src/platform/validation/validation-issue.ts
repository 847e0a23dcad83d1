// What validation found wrong with a request value, in the shape every surface words its errors from.

/** One problem: where it is (the path of segments into the value, array indexes as numbers) and why, for people. */
export interface ValidationIssue {
  path: (string | number)[];
  message: string;
}
