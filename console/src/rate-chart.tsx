import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { RatePoint } from './rates';

const WIDTH = 380;
const HEIGHT = 140;
/** The x axis always spans this window, ending at the latest reading. */
const WINDOW_SECONDS = 120;

const columns = (points: RatePoint[]): uPlot.AlignedData => [points.map((p) => p.at), points.map((p) => p.accepted), points.map((p) => p.refused)];

/**
 * One entity's deltas accepted and refused per second, drawn by uPlot on a canvas; the caption says the same in
 * words (the latest rates and the peak), for screen readers and for tests.
 */
export function RateChart({ entity, points }: { entity: string; points: RatePoint[] }) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);

  useEffect(() => {
    if (!box.current) return;
    plot.current = new uPlot(
      {
        width: WIDTH,
        height: HEIGHT,
        scales: {
          x: {
            time: true,
            // Before the first rate there is no point: the window ends now.
            range: (_u, _min, max) => {
              const end = Number.isFinite(max) ? max : Date.now() / 1000;
              return [end - WINDOW_SECONDS, end];
            },
          },
          y: { range: (_u, _min, max) => [0, Math.max(1, max)] },
        },
        title: entity,
        series: [{}, { label: 'accepted/s', stroke: '#176f2c', width: 2 }, { label: 'refused/s', stroke: '#b3261e', width: 2 }],
        axes: [{}, { label: 'deltas/s' }],
        legend: { live: false },
      },
      columns(points),
      box.current,
    );
    return () => {
      plot.current?.destroy();
      plot.current = null;
    };
  }, []);
  useEffect(() => plot.current?.setData(columns(points)), [points]);

  const last = points.at(-1);
  const peak = Math.max(0, ...points.map((p) => p.accepted));
  return (
    <figure aria-label={`deltas per second of ${entity}`}>
      {/* The canvas and its legend say nothing a screen reader could use; the caption says it in words. */}
      <div ref={box} aria-hidden="true" />
      <figcaption>
        {entity}: {(last?.accepted ?? 0).toFixed(1)} accepted/s, {(last?.refused ?? 0).toFixed(1)} refused/s now; peak {peak.toFixed(1)} accepted/s over{' '}
        {points.length} readings
      </figcaption>
    </figure>
  );
}
