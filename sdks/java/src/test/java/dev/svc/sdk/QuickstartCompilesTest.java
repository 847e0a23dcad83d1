package dev.svc.sdk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * The quickstarts compile (issue 29): every {@code java} block of the SDK's README, docs/sdks/java.md and the root
 * README (blocks fenced {@code java signature} are signatures, not code) is compiled with javac against the SDK and its
 * dependencies (this test's classpath, openai-java included). A block that declares no class is compiled as the body
 * of a method, its imports kept. A compile error fails the block's test, naming the page's line.
 */
class QuickstartCompilesTest {
    /** Surefire runs in the module's folder, sdks/java. */
    private static final Path ROOT = Path.of("../..").toAbsolutePath().normalize();
    private static final List<String> PAGES = List.of("sdks/java/README.md", "docs/sdks/java.md", "README.md");
    private static final Pattern FENCE =
            Pattern.compile("^```([^\\n]*)\\n(.*?)^```$", Pattern.MULTILINE | Pattern.DOTALL);
    private static final Pattern PUBLIC_CLASS = Pattern.compile("^public (?:final )?class (\\w+)", Pattern.MULTILINE);

    @TempDir
    Path classes;

    /** A block; {@code line} is the page's line of its first line of code. */
    record Block(String page, int line, String body) {}

    static List<Block> codeBlocks() throws IOException {
        List<Block> blocks = new ArrayList<>();
        for (String page : PAGES) {
            String text = Files.readString(ROOT.resolve(page));
            Matcher m = FENCE.matcher(text);
            while (m.find()) {
                List<String> info = List.of(m.group(1).trim().split("\\s+"));
                if (info.get(0).equals("java") && !info.contains("signature")) {
                    int line = (int) text.substring(0, m.start()).chars().filter(c -> c == '\n').count() + 2;
                    blocks.add(new Block(page, line, m.group(2)));
                }
            }
        }
        return blocks;
    }

    /** The block as a compilation unit with its lines where they were: statements go into a method of a class. */
    private static JavaFileObject sourceOf(Block block) {
        Matcher publicClass = PUBLIC_CLASS.matcher(block.body());
        String className = publicClass.find() ? publicClass.group(1) : "Snippet";
        String code = block.body();
        if (className.equals("Snippet")) {
            List<String> lines = new ArrayList<>(List.of(code.split("\n", -1)));
            int first = 0;
            while (first < lines.size() && (lines.get(first).startsWith("import ") || lines.get(first).isBlank())) first++;
            lines.set(first, "class Snippet { static void run() throws Exception { " + lines.get(first));
            code = String.join("\n", lines) + "}}";
        }
        String source = code;
        return new SimpleJavaFileObject(Path.of(className + ".java").toUri(), JavaFileObject.Kind.SOURCE) {
            @Override
            public CharSequence getCharContent(boolean ignoreEncodingErrors) {
                return source;
            }
        };
    }

    /** javac's errors for the block, each as {@code page:line: message}. */
    private static List<String> compileErrors(Block block, Path out) {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        List<String> options = List.of("-proc:none", "-d", out.toString(), "-cp", System.getProperty("java.class.path"));
        javac.getTask(null, null, diagnostics, options, null, List.of(sourceOf(block))).call();
        return diagnostics.getDiagnostics().stream()
                .filter(d -> d.getKind() == javax.tools.Diagnostic.Kind.ERROR)
                .map(d -> block.page() + ":" + (block.line() + d.getLineNumber() - 1) + ": "
                        + d.getMessage(Locale.ROOT))
                .collect(Collectors.toList());
    }

    @Test
    void theReadmeQuickstartIsAmongTheCheckedBlocks() throws IOException {
        assertTrue(codeBlocks().stream()
                .anyMatch(b -> b.page().equals("sdks/java/README.md") && b.body().contains("public class Quickstart")));
    }

    @TestFactory
    Stream<DynamicTest> everyJavaBlockCompiles() throws IOException {
        return codeBlocks().stream().map(block -> DynamicTest.dynamicTest(block.page() + ":" + block.line(), () -> {
            List<String> errors = compileErrors(block, Files.createTempDirectory(classes, "block-"));
            assertEquals(List.of(), errors, String.join("\n", errors));
        }));
    }
}
