package dev.lockstep.security;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

/**
 * The {@code kafka-acls.sh --add} commands of a document, as the ACL bindings the tool would
 * create: one per operation and resource named (a {@code --topic} and a {@code --group} in one
 * command are two resources). So a test applies exactly what the documentation tells an operator.
 */
final class DocumentedAcls {

    private DocumentedAcls() {
    }

    static List<AclBinding> read(Path document) throws IOException {
        List<AclBinding> bindings = new ArrayList<>();
        String text = Files.readString(document).replace("\\\n", " ");
        for (String line : text.lines().map(String::strip).filter(l -> l.startsWith("kafka-acls.sh ")).toList()) {
            bindings.addAll(command(line.split("\\s+")));
        }
        return bindings;
    }

    private static List<AclBinding> command(String[] words) {
        String principal = null;
        List<AclOperation> operations = new ArrayList<>();
        List<ResourcePattern> resources = new ArrayList<>();
        List<String[]> named = new ArrayList<>();
        PatternType pattern = PatternType.LITERAL;
        for (int i = 0; i < words.length; i++) {
            switch (words[i]) {
                case "--allow-principal" -> principal = words[++i];
                case "--operation" -> operations.add(AclOperation.fromString(snake(words[++i])));
                case "--topic" -> named.add(new String[] {"TOPIC", words[++i]});
                case "--group" -> named.add(new String[] {"GROUP", words[++i]});
                case "--resource-pattern-type" -> pattern = PatternType.fromString(words[++i].toUpperCase(Locale.ROOT));
                default -> {
                    // --bootstrap-server, --command-config, --add and their values: the tool's own
                }
            }
        }
        for (String[] resource : named) {
            resources.add(new ResourcePattern(ResourceType.fromString(resource[0]), resource[1], pattern));
        }
        if (principal == null || operations.isEmpty() || resources.isEmpty() || pattern == PatternType.UNKNOWN
                || operations.contains(AclOperation.UNKNOWN)) {
            throw new IllegalArgumentException("not a complete kafka-acls.sh --add command: " + String.join(" ", words));
        }
        List<AclBinding> bindings = new ArrayList<>();
        for (ResourcePattern resource : resources) {
            for (AclOperation operation : operations) {
                bindings.add(new AclBinding(resource, new AccessControlEntry(principal, "*", operation,
                        AclPermissionType.ALLOW)));
            }
        }
        return bindings;
    }

    /** {@code DescribeConfigs} as the enum names it: {@code DESCRIBE_CONFIGS}. */
    private static String snake(String camel) {
        return camel.replaceAll("([a-z])([A-Z])", "$1_$2").toUpperCase(Locale.ROOT);
    }
}
