// One OpenSearch node in this JVM, from jars on the classpath: OpenSearch publishes no launcher on Maven Central,
// so this builds the node's settings from system properties and starts it with the plugins the search adapter
// uses loaded from the classpath (no plugins/ or modules/ folders). The harness compiles it on first use.
// Properties: os.home (data, logs, config), os.http.port, os.transport.port, os.cluster.name.
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.opensearch.analysis.common.CommonAnalysisPlugin;
import org.opensearch.common.settings.Settings;
import org.opensearch.env.Environment;
import org.opensearch.index.mapper.MapperExtrasPlugin;
import org.opensearch.index.reindex.ReindexPlugin;
import org.opensearch.node.InternalSettingsPreparer;
import org.opensearch.node.Node;
import org.opensearch.painless.PainlessPlugin;
import org.opensearch.plugins.Plugin;
import org.opensearch.transport.Netty4Plugin;

public final class OpenSearchNode {
  private static final List<Class<? extends Plugin>> PLUGINS =
      List.of(Netty4Plugin.class, CommonAnalysisPlugin.class, PainlessPlugin.class, ReindexPlugin.class, MapperExtrasPlugin.class);

  /** Node's plugin constructor is protected: a subclass is the way to hand it classpath plugins. */
  private static final class ClasspathNode extends Node {
    ClasspathNode(Environment environment) {
      super(environment, PLUGINS, true);
    }
  }

  public static void main(String[] args) throws Exception {
    Path home = Path.of(System.getProperty("os.home")).toAbsolutePath();
    for (String dir : List.of("config", "data", "logs", "plugins", "modules")) Files.createDirectories(home.resolve(dir));
    Settings settings = Settings.builder()
        .put("path.home", home.toString())
        .put("path.data", home.resolve("data").toString())
        .put("path.logs", home.resolve("logs").toString())
        .put("cluster.name", System.getProperty("os.cluster.name", "deltabroker-test"))
        .put("node.name", "node-1")
        .put("discovery.type", "single-node")
        .put("network.host", "127.0.0.1")
        .put("http.port", System.getProperty("os.http.port"))
        .put("transport.port", System.getProperty("os.transport.port"))
        .put("http.type", "netty4")
        .put("transport.type", "netty4")
        // A test node on a shared disk: do not stop accepting writes when the disk is nearly full.
        .put("cluster.routing.allocation.disk.threshold_enabled", false)
        .build();
    Environment environment = InternalSettingsPreparer.prepareEnvironment(settings, Collections.emptyMap(), home.resolve("config"), () -> "node-1");
    Node node = new ClasspathNode(environment);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try {
        node.close();
      } catch (Exception e) {
        e.printStackTrace();
      } finally {
        stopped.countDown();
      }
    }));
    node.start();
    stopped.await();
  }
}
