// The three SDKs carry the metadata a public release needs (issue 29): the Python distribution (pyproject.toml, read
// with Python's tomllib), the npm package (package.json) and the Maven artifact (pom.xml), each naming the same
// repository, its license, authors, homepage, issue tracker and documentation; the npm package ships its declarations
// and the Maven build attaches -sources.jar and -javadoc.jar in `package` (not earlier, so `mvn test` stays as fast).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { ROOT } from '../helpers/cli.ts';

const REPOSITORY = 'https://github.com/svc-dev/svc';
const LICENSE = 'Apache-2.0';

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

t.test('Python: sdks/python/pyproject.toml', async (t) => {
  const toml = execFileSync(
    'python3',
    ['-c', 'import json, sys, tomllib; print(json.dumps(tomllib.load(sys.stdin.buffer)))'],
    {
      input: read('sdks/python/pyproject.toml'),
      encoding: 'utf8',
    },
  );
  const project = JSON.parse(toml).project;
  t.equal(project.name, 'svc-sdk');
  t.equal(project.license, LICENSE, 'an SPDX license expression');
  t.ok(project.authors?.length > 0 && project.authors.every((a: { name?: string }) => a.name), 'authors with names');
  t.equal(project.readme, 'README.md');
  t.ok(existsSync(join(ROOT, 'sdks/python', project.readme)), 'the readme exists');
  t.match(project['requires-python'], /^>=3\.\d+$/);
  t.ok(project.keywords?.length >= 3, 'keywords');
  t.same(Object.keys(project.urls ?? {}).sort(), ['Documentation', 'Homepage', 'Issues', 'Repository']);
  t.equal(project.urls.Repository, REPOSITORY);
  t.equal(project.urls.Issues, `${REPOSITORY}/issues`);
  t.ok(
    existsSync(join(ROOT, project.urls.Documentation.replace(`${REPOSITORY}/blob/main/`, ''))),
    'the docs page exists',
  );
  for (const classifier of [
    'Typing :: Typed',
    'Programming Language :: Python :: 3',
    'Intended Audience :: Developers',
  ])
    t.ok(project.classifiers.includes(classifier), classifier);
  const minor = Number(/^>=3\.(\d+)$/.exec(project['requires-python'])![1]);
  t.ok(project.classifiers.includes(`Programming Language :: Python :: 3.${minor}`), 'the oldest version supported');
  t.ok(existsSync(join(ROOT, 'sdks/python/src/svc/py.typed')), 'py.typed ships in the package');
});

t.test('JavaScript: sdks/js/package.json', async (t) => {
  const pkg = JSON.parse(read('sdks/js/package.json'));
  t.equal(pkg.name, 'svc-sdk');
  t.equal(pkg.license, LICENSE);
  t.ok(pkg.author, 'author');
  t.ok(pkg.keywords?.length >= 3, 'keywords');
  t.same(pkg.repository, { type: 'git', url: `git+${REPOSITORY}.git`, directory: 'sdks/js' });
  t.equal(pkg.homepage, `${REPOSITORY}/tree/main/sdks/js#readme`);
  t.same(pkg.bugs, { url: `${REPOSITORY}/issues` });
  t.match(pkg.engines?.node, /^>=\d+/);
  t.ok(pkg.files.includes('dist') && pkg.files.includes('README.md'), 'files: dist and the README');
  t.equal(pkg.types, './dist/index.d.ts');
  t.equal(pkg.main, './dist/index.js');
  // Each entry point has its declarations next to its code, both built from a source file of the same name.
  for (const [entry, target] of Object.entries(pkg.exports as Record<string, string | Record<string, string>>)) {
    if (entry === './package.json') continue;
    const { types, default: code } = target as Record<string, string>;
    t.equal(types, code!.replace(/\.js$/, '.d.ts'), `${entry}: types beside its code`);
    const source = code!.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts');
    t.ok(existsSync(join(ROOT, 'sdks/js', source)), `${entry}: built from sdks/js/${source}`);
  }
});

/** The text of the first `<name>…</name>` in `xml` (no nested element of the same name in the pom's use). */
const element = (xml: string, name: string) => new RegExp(`<${name}>([\\s\\S]*?)</${name}>`).exec(xml)?.[1]?.trim();

t.test('Java: sdks/java/pom.xml', async (t) => {
  const pom = read('sdks/java/pom.xml');
  // The project's own elements: the pom up to its dependency management.
  const head = pom.slice(0, pom.indexOf('<properties>'));
  t.equal(element(head, 'url'), `${REPOSITORY}/tree/main/sdks/java`);
  t.equal(element(element(head, 'licenses') ?? '', 'name'), LICENSE);
  t.ok(element(element(head, 'developers') ?? '', 'name'), 'a developer with a name');
  const scm = element(head, 'scm') ?? '';
  t.equal(element(scm, 'connection'), `scm:git:${REPOSITORY}.git`);
  t.ok(element(scm, 'developerConnection'), 'developerConnection');
  t.equal(element(scm, 'url'), REPOSITORY);
  t.equal(element(element(head, 'issueManagement') ?? '', 'url'), `${REPOSITORY}/issues`);
  t.ok(element(head, 'description'), 'description');

  const plugins = [...pom.matchAll(/<plugin>([\s\S]*?)<\/plugin>/g)].map((m) => m[1]!);
  const plugin = (artifactId: string) => plugins.find((p) => element(p, 'artifactId') === artifactId) ?? '';
  for (const [artifactId, goal] of [
    ['maven-source-plugin', 'jar-no-fork'],
    ['maven-javadoc-plugin', 'jar'],
  ] as const) {
    const p = plugin(artifactId);
    t.match(element(p, 'version'), /^\d+\.\d+\.\d+$/, `${artifactId}: a pinned version`);
    t.equal(element(p, 'goal'), goal, `${artifactId}: ${goal}`);
    // Both goals default to package; a <phase> would move them, e.g. into `mvn test`.
    t.notOk(element(p, 'phase'), `${artifactId}: runs in package`);
  }
});

t.test('each package ships the Apache-2.0 text the repository carries', async (t) => {
  const text = read('LICENSE');
  t.match(text, /Apache License\s+Version 2\.0, January 2004/);
  for (const sdk of ['sdks/python', 'sdks/js', 'sdks/java']) t.equal(read(`${sdk}/LICENSE`), text, `${sdk}/LICENSE`);
  const root = JSON.parse(read('package.json'));
  t.equal(root.license, LICENSE);
  t.same(root.repository, { type: 'git', url: `git+${REPOSITORY}.git` }, 'the service names its repository too');
});
