package io.jccl;

import java.util.List;

public class Smoke {
    public static void main(String[] a) throws Exception {
        int n = Integer.parseInt(a.length > 0 ? a[0] : "4");
        List<Communicator> comms = Communicator.initAll(n, Config.defaults().withTimeout(java.time.Duration.ofSeconds(20)));
        Thread[] ts = new Thread[n];
        for (Communicator c : comms) {
            ts[c.rank()] = Thread.ofPlatform().start(() -> {
                float[] d = new float[1000003];
                for (int i = 0; i < d.length; i++) d[i] = c.rank() + i % 7;
                c.allReduce(d, RedOp.SUM);
                float exp0 = n * (n - 1) / 2f;
                System.out.println("rank " + c.rank() + " d[0]=" + d[0] + " expected " + exp0 + " d[6]=" + d[6]);
                long t = System.nanoTime();
                float[] s = new float[2];
                for (int i = 0; i < 2000; i++) c.allReduce(s, RedOp.SUM);
                System.out.println("rank " + c.rank() + " small allreduce us " + (System.nanoTime() - t) / 2000 / 1e3);
                c.close();
            });
        }
        for (Thread t : ts) t.join();
    }
}
