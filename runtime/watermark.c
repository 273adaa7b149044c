/* watermark.c - a consumer's watermark: the minimum over every (input edge,
 * sender) of the last watermark that sender sent. Kept apart from the
 * threads so the rule can be tested on its own. */
#include <stdlib.h>

#include "air_int.h"

int air_wm_init(AirWm *w, int nslot) {
  w->nslot = nslot > 0 ? nslot : 0;
  w->slot = NULL;
  /* With no sender to wait for, the stream is over before it starts. */
  w->min = w->nslot ? AIR_WM_NONE : AIR_WM_END;
  if (!w->nslot)
    return 0;
  w->slot = malloc((size_t)w->nslot * sizeof *w->slot);
  if (!w->slot)
    return -1;
  for (int i = 0; i < w->nslot; i++)
    w->slot[i] = AIR_WM_NONE;
  return 0;
}

void air_wm_free(AirWm *w) {
  free(w->slot);
  w->slot = NULL;
  w->nslot = 0;
}

bool air_wm_update(AirWm *w, int slot, int64_t wm) {
  if (slot < 0 || slot >= w->nslot || wm <= w->slot[slot])
    return false;
  int64_t old = w->slot[slot];
  w->slot[slot] = wm;
  /* Only the slot(s) holding the minimum can raise it. */
  if (old != w->min)
    return false;
  int64_t m = AIR_WM_END;
  for (int i = 0; i < w->nslot; i++)
    if (w->slot[i] < m)
      m = w->slot[i];
  if (m <= w->min)
    return false;
  w->min = m;
  return true;
}
