import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Whether the object behind `ref` is garbage collected within a few full collections. */
export async function collected(ref: WeakRef<object>): Promise<boolean> {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  for (let i = 0; i < 10 && ref.deref(); i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    gc();
  }
  return ref.deref() === undefined;
}
