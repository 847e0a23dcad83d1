package dev.svc.sdk;

import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** {@code {{variable}}} substitution as Langfuse prompts use it; a variable without a value stays as written. */
final class PromptTemplate {
    private static final Pattern VARIABLE = Pattern.compile("\\{\\{\\s*([\\w.-]+)\\s*\\}\\}");

    private PromptTemplate() {}

    static String compile(String template, Map<String, ?> variables) {
        Matcher m = VARIABLE.matcher(template);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String name = m.group(1);
            String replacement = variables.containsKey(name) ? text(variables.get(name)) : m.group();
            m.appendReplacement(out, Matcher.quoteReplacement(replacement));
        }
        m.appendTail(out);
        return out.toString();
    }

    /** Strings as they are; maps and lists as JSON; anything else by String.valueOf. */
    private static String text(Object value) {
        if (value instanceof String s) return s;
        if (value instanceof Map<?, ?> || value instanceof Iterable<?>) return Json.write(value);
        return String.valueOf(value);
    }
}
