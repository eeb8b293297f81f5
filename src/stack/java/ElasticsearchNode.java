// One Elasticsearch node in this JVM, from Maven Central's jars: Elastic publishes no test distribution of 9.x
// there (integ-test-zip stops at 8.19), only the server and a few modules. The server's jars run on the module
// path as in the real distribution; this builds the node's settings from system properties and starts it with
// the modules found under <es.home>/modules (transport-netty4: HTTP), loaded by Elasticsearch's own plugin
// loader. No painless, reindex or analysis-common modules are published. The harness compiles it on first use.
// Properties: es.home (data, logs, config, modules), es.http.port, es.transport.port, es.cluster.name.
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import org.elasticsearch.common.logging.LogConfigurator;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.env.Environment;
import org.elasticsearch.node.InternalSettingsPreparer;
import org.elasticsearch.node.Node;
import org.elasticsearch.plugins.PluginsLoader;

public final class ElasticsearchNode {
  public static void main(String[] args) throws Exception {
    Path home = Path.of(System.getProperty("es.home")).toAbsolutePath();
    for (String dir : List.of("config", "data", "logs", "plugins", "modules")) Files.createDirectories(home.resolve(dir));
    Settings settings = Settings.builder()
        .put("path.home", home.toString())
        .put("path.data", home.resolve("data").toString())
        .put("path.logs", home.resolve("logs").toString())
        .put("cluster.name", System.getProperty("es.cluster.name", "deltabroker-test"))
        .put("node.name", "node-1")
        .put("discovery.type", "single-node")
        .put("network.host", "127.0.0.1")
        .put("http.port", System.getProperty("es.http.port"))
        .put("transport.port", System.getProperty("es.transport.port"))
        // A test node on a shared disk: do not stop accepting writes when the disk is nearly full.
        .put("cluster.routing.allocation.disk.threshold_enabled", false)
        .build();
    LogConfigurator.configureESLogging();
    LogConfigurator.configureWithoutConfig(settings);
    Environment environment = InternalSettingsPreparer.prepareEnvironment(settings, Map.of(), home.resolve("config"), () -> "node-1");
    PluginsLoader plugins = PluginsLoader.createPluginsLoader(PluginsLoader.loadModulesBundles(environment.modulesDir(), false), Set.of(), Map.of());
    Node node = new Node(environment, plugins);
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
